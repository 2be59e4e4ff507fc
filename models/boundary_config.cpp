#include "models/boundary_config.hpp"

#include "io/config.hpp"

namespace sim {

namespace {
/// The kind [boundary] key names (validated against the model's kinds already).
BcKind kind_at(const io::Config& c, const std::string& key) {
  BcKind k = BcKind::neumann;
  if (!bc_kind_from_name(c.string("boundary", key), k))
    throw c.error_at("boundary", key, "unknown boundary kind \"" + c.string("boundary", key) + "\"");
  return k;
}
}  // namespace

template <int Rank>
Boundary<Rank> boundary_from_config(const io::Config& c) {
  const FaceBc fallback{kind_at(c, "default"), c.real("boundary", "default_value")};
  Boundary<Rank> bc = Boundary<Rank>::all(fallback);
  for (int d = 0; d < Rank; ++d)
    for (int side = 0; side < 2; ++side) {
      const std::string face = face_name({d, side});
      FaceBc& f = side ? bc.hi[d] : bc.lo[d];
      if (!c.string("boundary", face).empty()) f.kind = kind_at(c, face);
      if (c.is_set("boundary", face + "_value")) f.value = c.real("boundary", face + "_value");
    }
  for (int d = 0; d < Rank; ++d)  // periodic pairs, named at the face to change
    if ((bc.lo[d].kind == BcKind::periodic) != (bc.hi[d].kind == BcKind::periodic)) {
      const Face odd{d, bc.lo[d].kind == BcKind::periodic ? 1 : 0}, other{d, 1 - odd.side};
      const std::string key = c.is_set("boundary", face_name(odd))     ? face_name(odd)
                              : c.is_set("boundary", face_name(other)) ? face_name(other)
                                                                       : "default";
      throw c.error_at("boundary", key, "periodic on " + face_name(other) + " needs periodic on " + face_name(odd) +
                                            " too (found " + bc_name(odd.side ? bc.hi[d].kind : bc.lo[d].kind) +
                                            "); set " + face_name(odd) + " = \"periodic\", or give " + face_name(other) +
                                            " another kind");
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
