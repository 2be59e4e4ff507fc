#pragma once
// The exceptions simkit throws. Each message says what happened and what to do about it.
#include <stdexcept>
#include <string>

namespace sim {

/// Base of all simkit errors.
struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// Arrays whose shapes do not fit the operation.
struct ShapeError : Error {
  using Error::Error;
};
/// An operation mixed backends, or asked for a backend that is not available.
struct BackendError : Error {
  using Error::Error;
};
/// An allocation failed; the message has the size asked for and the size free.
struct OutOfMemory : Error {
  using Error::Error;
};
/// A recoverable CUDA runtime or library error, with the call site.
struct CudaError : Error {
  using Error::Error;
};

/// Formats a byte count for people: "1.50 GiB".
std::string format_bytes(double bytes);

}  // namespace sim

/// Throws ErrType(message) when cond is false.
#define SIM_REQUIRE(cond, ErrType, message) \
  do {                                      \
    if (!(cond)) throw ErrType(message);    \
  } while (0)
