// OpenBLAS + LAPACKE opened on first use (see blas_library.hpp).
#include "core/cpu/blas_library.hpp"

#include <dlfcn.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace sim::cpu_libs {

namespace {

std::atomic<bool> plain_loops{false};

#if SIMKIT_HAS_CBLAS
struct Opened {
  Blas table;
  bool ok = false;
  std::string description = "plain loops on the cpu pool";
};

// Opens soname, or says why not in why.
void* open(const char* soname, std::string& why) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* e = dlerror();
    why = std::string("could not open ") + soname + " (" + (e ? e : "unknown reason") + ")";
  }
  return lib;
}

Opened open_blas() {
  Opened o;
  // Set before OpenBLAS loads, the only time it reads it (see the header); a user's value stays.
  setenv("OPENBLAS_THREAD_TIMEOUT", "20", 0);
  std::string why;
  void* blas = open(SIMKIT_OPENBLAS_SONAME, why);
  void* lapacke = blas ? open(SIMKIT_LAPACKE_SONAME, why) : nullptr;
  bool all = lapacke != nullptr;
#define SIMKIT_BIND(f)                                                                     \
  if (all) {                                                                               \
    o.table.f = reinterpret_cast<decltype(o.table.f)>(dlsym(blas, #f));                    \
    if (!o.table.f) o.table.f = reinterpret_cast<decltype(o.table.f)>(dlsym(lapacke, #f)); \
    if (!o.table.f) {                                                                      \
      all = false;                                                                         \
      why = std::string("no ") + #f + " in " + SIMKIT_OPENBLAS_SONAME + " or " + SIMKIT_LAPACKE_SONAME; \
    }                                                                                      \
  }
  SIMKIT_CPU_BLAS_FUNCTIONS(SIMKIT_BIND)
#undef SIMKIT_BIND
  if (!all) {
    std::fprintf(stderr,
                 "simkit: %s: the cpu backend's matmul, matvec, solve and inv run plain loops, which are far slower "
                 "(install OpenBLAS and LAPACKE: apt-get install libopenblas0 liblapacke)\n",
                 why.c_str());
    return o;
  }
  o.ok = true;
  using config_fn = char* (*)();
  auto config = reinterpret_cast<config_fn>(dlsym(blas, "openblas_get_config"));
  o.description = std::string(SIMKIT_OPENBLAS_SONAME) + " + " + SIMKIT_LAPACKE_SONAME + (config ? std::string(" (") + config() + ")" : "");
  return o;
}

const Opened& opened() {
  static const Opened o = open_blas();
  return o;
}
#endif

}  // namespace

const Blas* blas() {
#if SIMKIT_HAS_CBLAS
  if (plain_loops.load(std::memory_order_relaxed)) return nullptr;
  const Opened& o = opened();
  return o.ok ? &o.table : nullptr;
#else
  return nullptr;
#endif
}

const char* blas_description() {
#if SIMKIT_HAS_CBLAS
  if (!plain_loops.load(std::memory_order_relaxed)) return opened().description.c_str();
#endif
  return "plain loops on the cpu pool";
}

void use_plain_loops(bool on) { plain_loops.store(on); }

}  // namespace sim::cpu_libs
