#pragma once
// The solid cells of the fluid model's [model] obstacle, 2D and 3D: a cylinder (2D; in 3D a
// cylinder along z), a sphere (3D), a box, or a mask of 0 (solid) and 1 (fluid) read from a
// field of a simkit HDF5 file (model.obstacle_file, model.obstacle_dataset). Host code, run once.
#include <vector>

#include "core/mesh/grid.hpp"
#include "io/config.hpp"

namespace sim::fluid {

/// The whole grid's fluid (1) and solid (0) cells, row-major, for c's [model] obstacle; empty
/// for "none". ConfigError at the key at fault: a shape for the other rank, a wrong number of
/// coordinates, an obstacle that covers no cell or every cell, a mask file that is missing or
/// holds no such dataset, one of another shape, or values other than 0 and 1.
template <int Rank>
std::vector<double> obstacle_fluid_mask(const io::Config& c, const Grid<Rank>& global);

}  // namespace sim::fluid
