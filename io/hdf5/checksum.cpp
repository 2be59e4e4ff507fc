// The whole-file checksum trailer: written after HDF5's end of file, checked before HDF5 reads.
#include "io/hdf5/checksum.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdint>
#include <cstring>

#include "io/hdf5_file.hpp"

namespace sim::io {
namespace hdf5 {
namespace {

// HDF5 checksums its own metadata (v2 object headers, superblock) and Fletcher32 covers each
// chunk, but some bytes have no check at all: the global heap that holds variable-length
// strings, the v1 B-trees of chunk indexes, padding. A damaged byte there can make HDF5 read
// garbage, or crash. So every file simkit writes ends with a trailer, after HDF5's end of
// file (which HDF5 ignores): 8 bytes "SIMKSUM1" and a 64-bit hash of every byte before it.
// Readers check it before HDF5 sees the file.

constexpr char trailer_magic[8] = {'S', 'I', 'M', 'K', 'S', 'U', 'M', '1'};
constexpr std::size_t trailer_size = 16;

// A 64-bit hash over a byte stream fed in pieces: four multiply-xorshift lanes over 8-byte
// words, then the lanes and the length mixed together. Any changed, missing or added byte
// changes it (but for a 2^-64 chance).
class StreamHash {
 public:
  void update(const unsigned char* p, std::size_t n) {
    total_ += n;
    while (n > 0) {
      if (fill_ == 0 && n >= 32) {  // fast path: whole blocks straight from the input
        std::size_t blocks = n / 32;
        for (std::size_t b = 0; b < blocks; ++b, p += 32) block(p);
        n -= blocks * 32;
        continue;
      }
      const std::size_t take = std::min(n, std::size_t(32) - fill_);
      std::memcpy(buf_ + fill_, p, take);
      fill_ += take, p += take, n -= take;
      if (fill_ == 32) block(buf_), fill_ = 0;
    }
  }
  std::uint64_t digest() const {
    std::uint64_t h = total_ * 0x9E3779B97F4A7C15ull;
    for (std::uint64_t l : lane_) h = mix(h ^ mix(l));
    for (std::size_t i = 0; i < fill_; ++i) h = mix(h ^ (std::uint64_t(buf_[i]) + 0x100 * (i + 1)));
    return mix(h ^ fill_);
  }

 private:
  static std::uint64_t mix(std::uint64_t x) {  // splitmix64's finaliser: a bijection
    x ^= x >> 30, x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 27, x *= 0x94D049BB133111EBull;
    return x ^ (x >> 31);
  }
  void block(const unsigned char* p) {
    for (int k = 0; k < 4; ++k) {
      std::uint64_t w;
      std::memcpy(&w, p + 8 * k, 8);
      lane_[k] = mix(lane_[k] ^ w) + 0x632BE59BD9B4E019ull;
    }
  }
  std::uint64_t lane_[4] = {1, 2, 3, 4}, total_ = 0;
  unsigned char buf_[32] = {};
  std::size_t fill_ = 0;
};

// Hash of the first `length` bytes of fd (read from offset 0); false on a read error or short file.
bool hash_prefix(int fd, std::uint64_t length, std::uint64_t& out) {
  std::vector<unsigned char> buf(std::size_t(1) << 20);
  StreamHash h;
  std::uint64_t done = 0;
  while (done < length) {
    const std::size_t want = std::size_t(std::min<std::uint64_t>(buf.size(), length - done));
    const ssize_t n = ::pread(fd, buf.data(), want, off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    h.update(buf.data(), std::size_t(n));
    done += std::uint64_t(n);
  }
  out = h.digest();
  return true;
}

}  // namespace

// Appends the trailer to a closed file (written by HDF5 just before).
void append_trailer(const std::string& file, const std::string& for_path) {
  const int fd = ::open(file.c_str(), O_RDWR);
  auto fail = [&](const std::string& what) {
    const int e = errno;
    if (fd >= 0) ::close(fd);
    throw FileError(for_path + ": cannot " + what + " " + file + ": " + std::strerror(e));
  };
  if (fd < 0) fail("open");
  const off_t size = ::lseek(fd, 0, SEEK_END);
  if (size < 0) fail("size");
  std::uint64_t digest = 0;
  if (!hash_prefix(fd, std::uint64_t(size), digest)) fail("read back");
  unsigned char t[trailer_size];
  std::memcpy(t, trailer_magic, 8);
  for (int i = 0; i < 8; ++i) t[8 + i] = static_cast<unsigned char>(digest >> (8 * i));
  std::size_t done = 0;
  while (done < trailer_size) {
    const ssize_t n = ::pwrite(fd, t + done, trailer_size - done, size + off_t(done));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = ENOSPC;
      fail("append the checksum to");
    }
    done += std::size_t(n);
  }
  if (::close(fd) != 0) {
    const int e = errno;
    throw FileError(for_path + ": cannot close " + file + ": " + std::strerror(e));
  }
}

// Checks a file's trailer: verified, absent (not written by this simkit), or FileError when
// it is there and does not match (a damaged or truncated file).
Trailer check_trailer(const std::string& path) {
  const int fd = ::open(path.c_str(), O_RDONLY);
  if (fd < 0) {
    const int e = errno;
    throw FileError(path + ": cannot open: " + std::strerror(e));
  }
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  const off_t size = ::lseek(fd, 0, SEEK_END);
  unsigned char t[trailer_size];
  if (size < off_t(trailer_size) || ::pread(fd, t, trailer_size, size - off_t(trailer_size)) != ssize_t(trailer_size) ||
      std::memcmp(t, trailer_magic, 8) != 0)
    return Trailer::absent;
  std::uint64_t stored = 0, digest = 0;
  for (int i = 0; i < 8; ++i) stored |= std::uint64_t(t[8 + i]) << (8 * i);
  if (!hash_prefix(fd, std::uint64_t(size) - trailer_size, digest))
    throw FileError(path + ": cannot read it to verify its checksum");
  if (digest != stored)
    throw FileError(path + ": checksum mismatch: the file was changed or damaged after it was written");
  return Trailer::verified;
}

}  // namespace hdf5

void test_hooks::append_checksum(const std::string& path) { hdf5::append_trailer(path, path); }

}  // namespace sim::io
