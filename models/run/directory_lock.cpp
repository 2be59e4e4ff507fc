#include "models/run/directory_lock.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace sim::run {

DirectoryLock::~DirectoryLock() {
  if (fd_ >= 0) ::close(fd_);
}

void DirectoryLock::acquire(const io::Config& config, const std::string& dir) {
  const std::string path = dir + "/.simulate.lock";
  // never through a symbolic link: the pid note would overwrite the file it points to
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
  if (fd_ < 0 && errno == ELOOP)
    throw config.error_at("output", "directory", "the lock file " + path +
                                                      " is a symbolic link; simulate does not follow it (it would "
                                                      "overwrite the file it points to): remove it and run again");
  struct stat st;
  if (fd_ >= 0 && (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode))) {
    ::close(fd_), fd_ = -1;
    throw config.error_at("output", "directory", "the lock file " + path + " is not a regular file; remove it and run again");
  }
  if (fd_ < 0)
    throw config.error_at("output", "directory", "cannot create the lock file " + path + " (" + std::strerror(errno) +
                                                      "); choose a writable output.directory or --output");
  struct flock fl = {};
  fl.l_type = F_WRLCK, fl.l_whence = SEEK_SET, fl.l_start = 0, fl.l_len = 0;
  if (::fcntl(fd_, F_SETLK, &fl) != 0) {
    const int e = errno;
    // the holder writes its note just after taking the lock: a run started at the same moment
    // waits briefly for it rather than report an unknown owner
    std::string owner;
    for (int attempt = 0; attempt < 100 && owner.empty(); ++attempt) {
      if (attempt > 0) ::usleep(10000);
      char buf[128] = {};
      const ssize_t n = ::pread(fd_, buf, sizeof buf - 1, 0);
      owner = n > 0 ? std::string(buf, std::size_t(n)) : "";
    }
    while (!owner.empty() && (owner.back() == '\n' || owner.back() == ' ')) owner.pop_back();
    ::close(fd_), fd_ = -1;
    if (e != EACCES && e != EAGAIN)
      throw config.error_at("output", "directory", "cannot lock " + path + " (" + std::strerror(e) + ")");
    throw config.error_at("output", "directory",
                          "the output directory '" + dir + "' is in use by another simulate (" +
                              (owner.empty() ? std::string("its pid unknown") : owner) +
                              "); two runs in one directory would overwrite each other's files. Wait for it to end, "
                              "or give this run another output.directory (--output DIR)");
  }
  char host[256] = {};
  ::gethostname(host, sizeof host - 1);
  const std::string text = "pid " + std::to_string(::getpid()) + " on " + host + "\n";
  // written before truncating, so a reader never sees the note empty
  if (::pwrite(fd_, text.data(), text.size(), 0) != ssize_t(text.size()) || ::ftruncate(fd_, off_t(text.size())) != 0) {
    // the lock holds without the note; only the message to a second run loses the pid
  }
}

}  // namespace sim::run
