#pragma once
// Array<T, Rank>: owns a dense row-major block of memory on one context's backend.
// Move-only (copies are explicit: clone(), copy_from()); view() gives the kernel handle.
#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "core/runtime/context.hpp"
#include "core/runtime/error.hpp"
#include "core/runtime/types.hpp"
#include "core/array/view.hpp"

namespace sim {

/// The element types an Array may hold (bool: one byte per element, 0 or 1, as NumPy's bool_).
template <class T>
constexpr bool is_element_type =
    std::is_same<T, bool>::value || std::is_same<T, float>::value || std::is_same<T, double>::value || std::is_same<T, std::int32_t>::value ||
    std::is_same<T, std::int64_t>::value || std::is_same<T, std::uint32_t>::value ||
    std::is_same<T, std::uint64_t>::value;

/// An axis given by name: var(M, Axis{1}) is np.var(M, axis=1) (var(M, 1.0) is ddof 1);
/// concatenate(Axis{1}, a, b) joins along axis 1.
struct Axis {
  int index;
};

namespace detail {
/// Sets every element of v to value.
template <class T, int Rank>
void fill(const Context& ctx, View<T, Rank> v, T value);
/// Copies src into dst (same shape, same context; either may be strided).
template <class T, int Rank>
void copy(const Context& ctx, View<const T, Rank> src, View<T, Rank> dst);
/// Copies the elements of v into host memory, row-major (v may be strided).
template <class T, int Rank>
void copy_to_host(const Context& ctx, View<const T, Rank> v, T* host);
/// Copies row-major host memory into the elements of v (v may be strided).
template <class T, int Rank>
void copy_from_host(const Context& ctx, const T* host, View<T, Rank> v);
/// Queues a copy of v's elements (on a GPU) into pinned host memory on `stream` (a
/// cudaStream_t) without waiting. Returns false, queueing nothing, when v's layout needs a
/// packing kernel first (narrow rows), and always in builds without CUDA.
template <class T, int Rank>
bool copy_to_host_async(View<const T, Rank> v, T* host, void* stream);
/// Queues a copy of pinned host memory into v's elements (on a GPU) on `stream`; false as above.
template <class T, int Rank>
bool copy_from_host_async(const T* host, View<T, Rank> v, void* stream);
}  // namespace detail

template <class T, int Rank>
class Array {
  static_assert(is_element_type<T>,
                "Array element type must be bool, float, double, int32_t, int64_t, uint32_t or uint64_t");

 public:
  using value_type = T;
  static constexpr int rank = Rank;

  Array() = default;
  /// Allocates an uninitialised array of the given shape on ctx's backend.
  Array(const Context& ctx, const Extents<Rank>& shape) : ctx_(ctx) {
    if (!ctx.valid()) throw BackendError("Array created with an empty Context");
    for (int d = 0; d < Rank; ++d)
      if (shape.n[d] < 0) throw ShapeError("negative extent in array shape " + to_string(shape));
    if (static_cast<std::size_t>(shape.size()) > SIZE_MAX / sizeof(T) / 2)
      throw OutOfMemory("array of shape " + to_string(shape) + " is larger than any memory (" +
                        std::to_string(shape.size()) + " elements)");
    const std::size_t bytes = static_cast<std::size_t>(shape.size()) * sizeof(T);
    Context owner = ctx;
    mem_ = std::shared_ptr<T>(static_cast<T*>(ctx.allocate(bytes)),
                              [owner, bytes](T* p) { owner.deallocate(p, bytes); });
    view_.ptr = mem_.get();
    view_.shape = shape;
    row_major_strides(shape, view_.stride);
  }
  /// An array of the given shape with every element set to value.
  static Array full(const Context& ctx, const Extents<Rank>& shape, T value) {
    Array a(ctx, shape);
    a.fill(value);
    return a;
  }
  /// An array of the given shape filled with zeros.
  static Array zeros(const Context& ctx, const Extents<Rank>& shape) { return full(ctx, shape, T(0)); }
  /// An array holding a copy of row-major host data, which must have shape.size() elements.
  static Array from_host(const Context& ctx, const Extents<Rank>& shape, const std::vector<T>& host) {
    Array a(ctx, shape);
    a.copy_from_host(host);
    return a;
  }

  Array(Array&&) noexcept = default;
  Array& operator=(Array&&) noexcept = default;
  Array(const Array&) = delete;             // Arrays are not copied implicitly: b = a.clone() copies, std::move(a) moves
  Array& operator=(const Array&) = delete;  // Arrays are not copied implicitly: b.copy_from(a) or b = a.clone()

  /// An array holding the value of an expression, evaluated now on the expression's context
  /// (Array<double, 2> B = A + 1.0; as sim::eval). Defined in expr/evaluate.hpp.
  template <class E, class = std::enable_if_t<E::is_sim_expression>>
  Array(const E& expression);

  /// Evaluates a fused elementwise expression into this array in one pass (see expr.hpp).
  template <class E, class = std::enable_if_t<E::is_sim_expression>>
  Array& operator=(const E& expression);

  /// The context (and so the backend) this array lives on.
  const Context& context() const { return ctx_; }
  /// The extents.
  const Extents<Rank>& shape() const { return view_.shape; }
  /// Extent of dimension d.
  index_t extent(int d) const { return view_.shape.n[d]; }
  /// Number of elements.
  index_t size() const { return view_.shape.size(); }
  /// True when the array has no elements.
  bool empty() const { return size() == 0; }
  /// Bytes of element storage.
  std::size_t bytes() const { return static_cast<std::size_t>(size()) * sizeof(T); }
  /// Element strides (row-major).
  const index_t* strides() const { return view_.stride; }
  /// Address of the first element (device memory on cuda).
  T* data() { return view_.ptr; }
  const T* data() const { return view_.ptr; }
  /// The kernel handle.
  View<T, Rank> view() { return view_; }
  View<const T, Rank> view() const { return view_; }
  /// The index box [0, shape).
  Box<Rank> box() const { return box_of(view_.shape); }

  /// Sets every element to value.
  void fill(T value) { detail::fill(ctx_, view_, value); }
  /// Copies the elements to a host vector (row-major); waits for the copy.
  /// (For bool the result is a std::vector<bool>, filled through a byte buffer.)
  std::vector<T> to_host() const {
    if constexpr (std::is_same<T, bool>::value) {
      std::unique_ptr<bool[]> bytes(new bool[static_cast<std::size_t>(size())]);
      detail::copy_to_host<T, Rank>(ctx_, view_, bytes.get());
      return std::vector<bool>(bytes.get(), bytes.get() + size());
    } else {
      std::vector<T> host(static_cast<std::size_t>(size()));
      detail::copy_to_host<T, Rank>(ctx_, view_, host.data());
      return host;
    }
  }
  /// Copies a host vector (row-major, size() elements) into the array; waits for the copy.
  void copy_from_host(const std::vector<T>& host) {
    if (static_cast<index_t>(host.size()) != size())
      throw ShapeError("copy_from_host: " + std::to_string(host.size()) + " host elements for an array of shape " +
                       to_string(shape()) + " (" + std::to_string(size()) + " elements)");
    if constexpr (std::is_same<T, bool>::value) {
      std::unique_ptr<bool[]> bytes(new bool[host.size()]);
      std::copy(host.begin(), host.end(), bytes.get());
      detail::copy_from_host<T, Rank>(ctx_, bytes.get(), view_);
    } else {
      detail::copy_from_host<T, Rank>(ctx_, host.data(), view_);
    }
  }
  /// Copies the elements into a host buffer of size() elements (pinned on cuda); waits.
  template <class Buffer>
  void copy_to(Buffer& host) const {
    if (static_cast<index_t>(host.size()) != size())
      throw ShapeError("copy_to: buffer of " + std::to_string(host.size()) + " elements for " + std::to_string(size()));
    detail::copy_to_host<T, Rank>(ctx_, view_, host.data());
  }
  /// Copies the elements from a host buffer of size() elements; waits.
  template <class Buffer>
  void copy_from(const Buffer& host, std::enable_if_t<!std::is_same<Buffer, Array>::value, int> = 0) {
    if (static_cast<index_t>(host.size()) != size())
      throw ShapeError("copy_from: buffer of " + std::to_string(host.size()) + " elements for " + std::to_string(size()));
    detail::copy_from_host<T, Rank>(ctx_, host.data(), view_);
  }
  /// Copies another array of the same shape and context into this one.
  void copy_from(const Array& other) {
    if (other.ctx_ != ctx_) throw BackendError("copy_from: arrays live on different contexts");
    if (other.shape() != shape())
      throw ShapeError("copy_from: shape " + to_string(other.shape()) + " into shape " + to_string(shape()));
    detail::copy<T, Rank>(ctx_, other.view_, view_);
  }
  /// A new array with the same shape, context and contents.
  Array clone() const {
    Array a(ctx_, shape());
    a.copy_from(*this);
    return a;
  }
  /// A new uninitialised array with the same shape and context (np.empty_like).
  Array empty_like() const { return Array(ctx_, shape()); }
  /// A new array of zeros with the same shape and context (np.zeros_like).
  Array zeros_like() const { return full(ctx_, shape(), T(0)); }
  /// A new array with the same shape and context, every element value (np.full_like).
  Array full_like(T value) const { return full(ctx_, shape(), value); }

 private:
  Context ctx_;
  std::shared_ptr<T> mem_;
  View<T, Rank> view_{};
};

}  // namespace sim
