#pragma once
// HostBuffer<T>: host memory for transfers. Page-locked (pinned) on a cuda context, so
// copies run at full PCIe/NVLink speed and can overlap kernels; 64-byte aligned otherwise.
#include <cstddef>
#include <memory>

#include "core/runtime/context.hpp"

namespace sim {

template <class T>
class HostBuffer {
 public:
  HostBuffer() = default;
  /// n elements of host memory suited to ctx's transfers.
  HostBuffer(const Context& ctx, std::size_t n)
      : ctx_(ctx), size_(n), mem_(static_cast<T*>(ctx.allocate_host(n * sizeof(T))), Free{ctx, n * sizeof(T)}) {}
  /// Address of the first element.
  T* data() { return mem_.get(); }
  const T* data() const { return mem_.get(); }
  /// Number of elements.
  std::size_t size() const { return size_; }
  T& operator[](std::size_t i) { return mem_.get()[i]; }
  const T& operator[](std::size_t i) const { return mem_.get()[i]; }
  T* begin() { return data(); }
  T* end() { return data() + size_; }

 private:
  struct Free {
    Context ctx;
    std::size_t bytes;
    void operator()(T* p) const { ctx.deallocate_host(p, bytes); }
  };
  Context ctx_;
  std::size_t size_ = 0;
  std::unique_ptr<T, Free> mem_{nullptr, Free{}};
};

}  // namespace sim
