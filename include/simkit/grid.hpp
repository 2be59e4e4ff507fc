#pragma once
// Grids with ghost cells, fields, boundary conditions (ghost fill), stencil operators and the
// tuned stencil pass (sim::stencil_pass, for a model's pointwise update; sim::flux_pass for
// flux-form updates with zero-flux walls), and
// the exchange of ghost cells between ranks (sim::Halo) that a decomposed model needs.
#include "core/mesh/boundary.hpp"
#include "core/mesh/stencil_pass.hpp"
#include "core/mesh/flux_pass.hpp"
#include "core/mesh/grid.hpp"
#include "core/distributed/halo.hpp"
#include "core/mesh/stencil.hpp"
