#include "models/plugin.hpp"

#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <string>
#include <filesystem>
#include <vector>

#include "core/runtime/error.hpp"

namespace sim {

namespace {

/// dlopen maps a shared library's segments as the headers say; a file shorter than they claim
/// (a copy cut short, a build still being written) ends in SIGBUS inside dlopen. So the ELF
/// header, the program headers and every loadable segment are checked against the file's size
/// first. Throws Error saying what is wrong.
void check_elf(const std::string& path) {
  auto bad = [&](const std::string& why) {
    return Error("plugin " + path + ": " + why + "; rebuild the plugin (or fix the path)");
  };
  const int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw bad(std::string("cannot be opened (") + std::strerror(errno) + ")");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  struct stat st;
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) throw bad("is not a regular file");
  const std::uint64_t size = std::uint64_t(st.st_size);
  auto read_at = [&](std::uint64_t offset, void* out, std::size_t n) {
    return offset <= size && n <= size - offset && ::pread(fd, out, n, off_t(offset)) == ssize_t(n);
  };
  Elf64_Ehdr eh;
  if (!read_at(0, &eh, sizeof eh) || std::memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
    throw bad("is not a shared library (no ELF header; " + std::to_string(size) + " bytes)");
  if (eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_ident[EI_DATA] != ELFDATA2LSB || eh.e_type != ET_DYN)
    throw bad("is not a 64-bit little-endian shared library");
  if (eh.e_phentsize != sizeof(Elf64_Phdr) || eh.e_phnum == 0)
    throw bad("has no valid program headers (damaged?)");
  std::vector<Elf64_Phdr> ph(eh.e_phnum);
  if (!read_at(eh.e_phoff, ph.data(), ph.size() * sizeof(Elf64_Phdr)))
    throw bad("is cut short: its program headers lie past its end (" + std::to_string(size) + " bytes)");
  for (const Elf64_Phdr& p : ph)
    if ((p.p_type == PT_LOAD || p.p_type == PT_DYNAMIC) && (p.p_offset > size || p.p_filesz > size - p.p_offset))
      throw bad("is cut short: a segment ends at byte " + std::to_string(p.p_offset + p.p_filesz) + " but the file has " +
                std::to_string(size));
  if (eh.e_shnum > 0 && (eh.e_shoff > size || std::uint64_t(eh.e_shnum) * eh.e_shentsize > size - eh.e_shoff))
    throw bad("is cut short: its section headers lie past its end (" + std::to_string(size) + " bytes)");
}

/// What a plugin threw, as text: its message, or what it was when not a std::exception.
std::string thrown_text() {
  try {
    throw;
  } catch (const std::exception& e) {
    return e.what();
  } catch (int v) {
    return "an int, " + std::to_string(v) + ", instead of an exception";
  } catch (const char* s) {
    return s ? std::string(s) : std::string("a null string");
  } catch (...) {
    return "something that is not a std::exception";
  }
}

}  // namespace

void load_plugin(const std::string& path, ModelRegistry& registry) {
  if (!std::filesystem::exists(path))
    throw Error("plugin " + path + ": no such file; build the model (simkit_add_model in CMake) or fix the path");
  check_elf(path);
  // dlopen runs the plugin's static constructors; an exception from one cannot pass through
  // the loader and ends in std::terminate: that is turned into the message and exit code 2
  // (nothing has been written yet: plugins load while the input is checked)
  static std::string loading;
  loading = path;
  const std::terminate_handler previous = std::set_terminate([] {
    std::string what = "an exception";
    if (std::current_exception()) what = thrown_text();
    std::fprintf(stderr, "simulate: error: plugin %s: threw while it was loaded (in a static constructor): %s; fix the plugin\n",
                 loading.c_str(), what.c_str());
    std::_Exit(2);
  });
  void* lib = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  std::set_terminate(previous);
  if (!lib) {
    const char* why = dlerror();
    throw Error("plugin " + path + ": cannot be loaded (" + (why ? why : "unknown reason") +
                "); it may have been built against another simkit; rebuild it against this one");
  }
  using AbiFn = const char* (*)();
  using RegisterFn = void (*)(ModelRegistry&);
  auto abi = reinterpret_cast<AbiFn>(dlsym(lib, "simkit_plugin_abi"));
  auto reg = reinterpret_cast<RegisterFn>(dlsym(lib, "simkit_plugin_register_models"));
  if (!abi || !reg) {
    dlclose(lib);
    throw Error("plugin " + path + ": not a simkit model plugin (no SIMKIT_PLUGIN entry points)");
  }
  const char* their_abi = nullptr;
  try {
    their_abi = abi();
  } catch (...) {
    throw Error("plugin " + path + ": simkit_plugin_abi threw: " + thrown_text() + "; rebuild the plugin with SIMKIT_PLUGIN");
  }
  if (!their_abi) {
    dlclose(lib);
    throw Error("plugin " + path + ": simkit_plugin_abi returned no ABI string (null); rebuild the plugin with SIMKIT_PLUGIN");
  }
  const std::string theirs = their_abi, ours = SIMKIT_PLUGIN_ABI_STRING;
  if (theirs != ours) {
    dlclose(lib);
    throw Error("plugin " + path + ": built against '" + theirs + "' but this simulate is '" + ours +
                "'; rebuild the plugin against this simkit");
  }
  const std::size_t before = registry.all().size();
  try {
    reg(registry);
  } catch (...) {
    // (the library stays loaded: models it registered before it threw point into it)
    throw Error("plugin " + path + ": registering its models threw: " + thrown_text() + "; fix the plugin");
  }
  if (registry.all().size() == before) throw Error("plugin " + path + ": registered no model");
  // The library stays loaded for the life of the process: its code runs the models.
}

}  // namespace sim
