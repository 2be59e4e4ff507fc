// The HDF5 library lock and the text of HDF5's innermost error (see handles.hpp).
#include "io/hdf5/handles.hpp"

#include <algorithm>

namespace sim::io::hdf5 {

std::mutex& library_mutex() {
  static std::mutex m;
  return m;
}

std::string h5_detail() {
  std::string msg;
  H5Ewalk2(
      H5E_DEFAULT, H5E_WALK_UPWARD,
      [](unsigned n, const H5E_error2_t* e, void* out) -> herr_t {
        if (n == 0 && e->desc) *static_cast<std::string*>(out) = e->desc;
        return 0;
      },
      &msg);
  H5Eclear2(H5E_DEFAULT);
  // a failed system call comes as "file write failed: time = ..., errno = 28, error message =
  // 'No space left on device', ...": keep the system's words
  const std::size_t at = msg.find("error message = '");
  if (at != std::string::npos) {
    const std::size_t from = at + 17, to = msg.find('\'', from);
    const std::string what = msg.substr(0, std::min(msg.find(':'), msg.find(',')));
    msg = what + ": " + msg.substr(from, to == std::string::npos ? std::string::npos : to - from);
  }
  return msg;
}

}  // namespace sim::io::hdf5
