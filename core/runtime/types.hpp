#pragma once
// Index types, extents and index boxes shared by every backend.
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/runtime/macros.hpp"

namespace sim {

/// Signed 64-bit index: arrays over 2^31 elements index correctly.
using index_t = std::int64_t;

/// V elements of T moved as one aligned unit (one vector load or store in a GPU kernel).
template <class T, int V>
struct alignas(sizeof(T) * V) Pack {
  T v[V];
};

/// The extent of each of Rank dimensions (row-major: the last index is contiguous).
template <int Rank>
struct Extents {
  static_assert(Rank >= 1 && Rank <= 3, "simkit arrays have rank 1, 2 or 3");
  index_t n[Rank] = {};

  SIM_HOST_DEVICE index_t operator[](int d) const { return n[d]; }
  SIM_HOST_DEVICE index_t& operator[](int d) { return n[d]; }
  /// Number of elements (product of the extents).
  SIM_HOST_DEVICE index_t size() const {
    index_t s = 1;
    for (int d = 0; d < Rank; ++d) s *= n[d];
    return s;
  }
  friend bool operator==(const Extents& a, const Extents& b) {
    for (int d = 0; d < Rank; ++d)
      if (a.n[d] != b.n[d]) return false;
    return true;
  }
  friend bool operator!=(const Extents& a, const Extents& b) { return !(a == b); }
};

/// Builds Extents from a list of sizes: extents(nx, ny).
template <class... I>
Extents<static_cast<int>(sizeof...(I))> extents(I... n) {
  return Extents<static_cast<int>(sizeof...(I))>{{static_cast<index_t>(n)...}};
}

/// Human-readable form of a shape, e.g. "(4, 5)".
template <int Rank>
std::string to_string(const Extents<Rank>& e) {
  std::string s = "(";
  for (int d = 0; d < Rank; ++d) s += (d ? ", " : "") + std::to_string(e.n[d]);
  return s + ")";
}

/// A half-open index box [lo, hi) in Rank dimensions; lo may be negative (ghost cells).
template <int Rank>
struct Box {
  index_t lo[Rank] = {};
  index_t hi[Rank] = {};

  /// Extent of dimension d (0 when the box is empty in d).
  SIM_HOST_DEVICE index_t extent(int d) const { return hi[d] > lo[d] ? hi[d] - lo[d] : 0; }
  /// Number of index points in the box.
  SIM_HOST_DEVICE index_t size() const {
    index_t s = 1;
    for (int d = 0; d < Rank; ++d) s *= extent(d);
    return s;
  }
  /// The extents of the box as a shape.
  Extents<Rank> shape() const {
    Extents<Rank> e;
    for (int d = 0; d < Rank; ++d) e.n[d] = extent(d);
    return e;
  }
  /// The box grown by g cells on every side.
  Box grow(index_t g) const {
    Box b = *this;
    for (int d = 0; d < Rank; ++d) b.lo[d] -= g, b.hi[d] += g;
    return b;
  }
  /// True when other lies entirely inside this box.
  bool contains(const Box& other) const {
    for (int d = 0; d < Rank; ++d)
      if (other.size() > 0 && (other.lo[d] < lo[d] || other.hi[d] > hi[d])) return false;
    return true;
  }
};

/// The box [0, shape) covering a whole array.
template <int Rank>
Box<Rank> box_of(const Extents<Rank>& e) {
  Box<Rank> b;
  for (int d = 0; d < Rank; ++d) b.hi[d] = e.n[d];
  return b;
}

/// Human-readable form of a box, e.g. "[0:4, -1:5)".
template <int Rank>
std::string to_string(const Box<Rank>& b) {
  std::string s = "[";
  for (int d = 0; d < Rank; ++d)
    s += (d ? ", " : "") + std::to_string(b.lo[d]) + ":" + std::to_string(b.hi[d]);
  return s + ")";
}

}  // namespace sim
