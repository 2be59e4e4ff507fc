#pragma once
// Grids with ghost cells, fields, boundary conditions (ghost fill) and stencil operators, and
// the exchange of ghost cells between ranks (sim::Halo) that a decomposed model needs.
#include "core/boundary.hpp"
#include "core/diffusion.hpp"
#include "core/grid.hpp"
#include "core/halo.hpp"
#include "core/stencil.hpp"
