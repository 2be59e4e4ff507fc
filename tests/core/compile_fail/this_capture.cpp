// A SIM_LAMBDA must not capture `this` (on the GPU it would be a host pointer). C++17 lets
// [=] capture it silently; C++20 deprecates that, and no_this_capture.cmake makes the
// deprecation an error. SIM_CASE 0 (copy the member to a local first) must compile.
#include "core/kernels/for_each.hpp"
#include "core/array/view.hpp"

struct Model {
  sim::View<double, 1> u;
  double r = 0.5;
  void step(const sim::Context& ctx, const sim::Box<1>& box) {
#if SIM_CASE == 0
    auto v = u;
    const double rate = r;
    sim::for_each(ctx, "test::scale", box, SIM_LAMBDA(sim::index_t i) { v(i) = rate * v(i); });
#elif SIM_CASE == 1
    sim::for_each(ctx, "test::scale", box, SIM_LAMBDA(sim::index_t i) { u(i) = r * u(i); });  // uses this->u, this->r
#endif
  }
};
