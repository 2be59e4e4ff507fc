#pragma once
// A lock on the output directory for the life of the run: a second simulate writing into the
// same directory would replace its snapshots and interleave its diagnostics. The lock is an
// fcntl lock on DIR/.simulate.lock (which holds the pid of its owner, for the message): the
// system drops it when its process ends, however it ends, so a stale file never blocks.
#include <string>

#include "io/config.hpp"

namespace sim::run {

/// An fcntl lock on an output directory, held until destroyed.
class DirectoryLock {
 public:
  DirectoryLock() = default;
  DirectoryLock(const DirectoryLock&) = delete;
  DirectoryLock& operator=(const DirectoryLock&) = delete;
  /// Releases the lock.
  ~DirectoryLock();
  /// Takes the lock or throws ConfigError at output.directory naming the owner.
  void acquire(const io::Config& config, const std::string& dir);

 private:
  int fd_ = -1;
};

}  // namespace sim::run
