#pragma once
// Reads the [boundary] section into a Boundary<Rank>: `default` / `default_value` for every
// face, then per face x_lo, x_hi, y_lo, ... and <face>_value where set.
#include "core/mesh/boundary.hpp"
#include "models/model.hpp"

namespace sim::io {
class Config;
}

namespace sim {

/// The boundary conditions the config asks for, for a grid of rank Rank: any kind the model's
/// [boundary] schema accepted (ModelInfo::boundary_kinds). Throws ConfigError at the face's key
/// when a dimension is periodic on one face only.
template <int Rank>
Boundary<Rank> boundary_from_config(const io::Config& c);

/// This rank's box of the setup's grid and its neighbours (the whole grid on one process),
/// with the dimensions the config makes periodic wrapping around.
template <int Rank>
Subdomain subdomain_of(const ModelSetup& setup) {
  const Boundary<Rank> bc = boundary_from_config<Rank>(*setup.config);
  bool periodic[3] = {false, false, false};
  for (int d = 0; d < Rank; ++d) periodic[d] = bc.lo[d].kind == BcKind::periodic;
  return setup.subdomain(periodic);
}

}  // namespace sim
