#pragma once
// Number formatting shared by the HDF5 and XDMF writers.
#include <cstdlib>
#include <sstream>
#include <string>

namespace sim::io {

/// Shortest decimal that reads back as the same double.
inline std::string shortest_text(double v) {
  for (int p = 6;; ++p) {
    std::ostringstream o;
    o.precision(p);
    o << v;
    if (p >= 17 || std::strtod(o.str().c_str(), nullptr) == v) return o.str();
  }
}

}  // namespace sim::io
