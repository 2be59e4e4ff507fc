/* A full disk, for the fault suite where no small tmpfs can be mounted: LD_PRELOAD this
 * library and set SIMKIT_FAULT_DISK_BYTES=N. Writes to regular files (not stdin/out/err)
 * then share a budget of N bytes, like a disk with N bytes free: a write that does not fit
 * is cut short, the next one fails with ENOSPC. Truncating or deleting a file gives its bytes
 * back, as a file system would. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

static atomic_llong budget = -1; /* -1: not read yet; -2: no limit */

static long long take(int fd, long long want) {
  long long b = atomic_load(&budget);
  if (b == -1) {
    const char* s = getenv("SIMKIT_FAULT_DISK_BYTES");
    long long v = s && *s ? atoll(s) : -2;
    atomic_compare_exchange_strong(&budget, &b, v);
    b = atomic_load(&budget);
  }
  if (b == -2 || fd <= 2 || want <= 0) return want;
  struct stat st;
  if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) return want;
  for (;;) {
    long long give = want < b ? want : b;
    if (atomic_compare_exchange_weak(&budget, &b, b - give)) return give;
  }
}

static void give_back(long long n) {
  long long b = atomic_load(&budget);
  while (b >= 0 && !atomic_compare_exchange_weak(&budget, &b, b + n)) {
  }
}

#define NEXT(name) ((__typeof__(&name))dlsym(RTLD_NEXT, #name))

ssize_t write(int fd, const void* buf, size_t n) {
  long long ok = take(fd, (long long)n);
  if (n > 0 && ok == 0) return errno = ENOSPC, -1;
  return NEXT(write)(fd, buf, (size_t)ok);
}
ssize_t pwrite(int fd, const void* buf, size_t n, off_t off) {
  long long ok = take(fd, (long long)n);
  if (n > 0 && ok == 0) return errno = ENOSPC, -1;
  return NEXT(pwrite)(fd, buf, (size_t)ok, off);
}
ssize_t pwrite64(int fd, const void* buf, size_t n, off_t off) {
  long long ok = take(fd, (long long)n);
  if (n > 0 && ok == 0) return errno = ENOSPC, -1;
  return NEXT(pwrite64)(fd, buf, (size_t)ok, off);
}
ssize_t writev(int fd, const struct iovec* iov, int cnt) {
  long long total = 0;
  for (int i = 0; i < cnt; ++i) total += (long long)iov[i].iov_len;
  long long ok = take(fd, total);
  if (total > 0 && ok == 0) return errno = ENOSPC, -1;
  if (ok == total) return NEXT(writev)(fd, iov, cnt);
  /* cut short: write the bytes that fit, from the first buffers */
  ssize_t done = 0;
  for (int i = 0; i < cnt && ok > 0; ++i) {
    size_t part = iov[i].iov_len < (size_t)ok ? iov[i].iov_len : (size_t)ok;
    ssize_t w = NEXT(write)(fd, iov[i].iov_base, part);
    if (w < 0) return done ? done : w;
    done += w, ok -= w;
  }
  return done;
}
int ftruncate(int fd, off_t len) {
  struct stat st;
  long long before = fstat(fd, &st) == 0 ? (long long)st.st_size : 0;
  int r = NEXT(ftruncate)(fd, len);
  if (r == 0 && before > (long long)len) give_back(before - (long long)len);
  return r;
}
int unlink(const char* path) {
  struct stat st;
  long long size = stat(path, &st) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : 0;
  int r = NEXT(unlink)(path);
  if (r == 0) give_back(size);
  return r;
}
int unlinkat(int dirfd, const char* path, int flags) {
  struct stat st;
  long long size = fstatat(dirfd, path, &st, 0) == 0 && S_ISREG(st.st_mode) ? (long long)st.st_size : 0;
  int r = NEXT(unlinkat)(dirfd, path, flags);
  if (r == 0) give_back(size);
  return r;
}
