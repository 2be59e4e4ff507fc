#include "models/boundary_config.hpp"

#include "io/config.hpp"

namespace sim {

namespace {
BcKind kind_of(const std::string& s) {
  if (s == "periodic") return BcKind::periodic;
  if (s == "dirichlet") return BcKind::dirichlet;
  return BcKind::neumann;
}
}  // namespace

template <int Rank>
Boundary<Rank> boundary_from_config(const io::Config& c) {
  const FaceBc fallback{kind_of(c.string("boundary", "default")), c.real("boundary", "default_value")};
  Boundary<Rank> bc = Boundary<Rank>::all(fallback);
  const char* axis = "xyz";
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side) {
      const std::string face = std::string(1, axis[d]) + (side ? "_hi" : "_lo");
      FaceBc& f = side ? bc.hi[d] : bc.lo[d];
      const std::string& kind = c.string("boundary", face);
      if (!kind.empty()) f.kind = kind_of(kind);
      if (c.is_set("boundary", face + "_value")) f.value = c.real("boundary", face + "_value");
    }
  try {
    Grid<Rank> probe;
    for (int d = 0; d < Rank; ++d) probe.cells.n[d] = 1 << 20;
    validate(bc, probe);
  } catch (const Error& e) {
    throw c.error_at("boundary", "default", e.what());
  }
  return bc;
}

template Boundary<1> boundary_from_config<1>(const io::Config&);
template Boundary<2> boundary_from_config<2>(const io::Config&);
template Boundary<3> boundary_from_config<3>(const io::Config&);

}  // namespace sim
