#pragma once
// Grids with ghost cells, fields, boundary conditions (ghost fill), stencil operators and the
// tuned stencil pass (sim::stencil_pass, for a model's pointwise update), and
// the exchange of ghost cells between ranks (sim::Halo) that a decomposed model needs.
#include "core/boundary.hpp"
#include "core/stencil_pass.hpp"
#include "core/grid.hpp"
#include "core/halo.hpp"
#include "core/stencil.hpp"
