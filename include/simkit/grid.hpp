#pragma once
// Grids with ghost cells, fields, boundary conditions (ghost fill) and stencil operators.
#include "core/boundary.hpp"
#include "core/diffusion.hpp"
#include "core/grid.hpp"
#include "core/stencil.hpp"
