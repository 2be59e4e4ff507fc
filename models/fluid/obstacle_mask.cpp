#include "models/fluid/obstacle_mask.hpp"

#include <cmath>
#include <cstdint>
#include <string>

#include "io/hdf5_file.hpp"

namespace sim::fluid {
namespace {

std::string shape_text(const std::vector<std::int64_t>& s) {
  std::string t = "(";
  for (std::size_t i = 0; i < s.size(); ++i) t += (i ? ", " : "") + std::to_string(s[i]);
  return t + ")";
}

/// The mask dataset of model.obstacle_file, checked against the grid's shape and for 0/1 values.
template <int Rank>
std::vector<double> read_mask(const io::Config& c, const Grid<Rank>& global) {
  const std::string file = c.string("model", "obstacle_file"), dataset = c.string("model", "obstacle_dataset");
  if (file.empty())
    throw c.error_at("model", "obstacle_file", "obstacle = \"mask\" needs obstacle_file = \"path.h5\", a simkit snapshot "
                                               "or checkpoint holding the mask as a field");
  std::vector<std::int64_t> want;
  for (int d = 0; d < Rank; ++d) want.push_back(global.cells.n[d]);
  io::FieldData f;
  try {
    f = io::read_field(file, dataset);
  } catch (const Error& e) {
    throw c.error_at("model", "obstacle_file", std::string(e.what()) + "; expected a simkit snapshot or checkpoint holding field '" +
                                                   dataset + "' (model.obstacle_dataset) of shape " + shape_text(want) +
                                                   ", 0 in solid cells and 1 in fluid cells: fix the path or the name");
  }
  if (f.shape != want)
    throw c.error_at("model", "obstacle_file", "dataset '" + dataset + "' in " + file + " has shape " + shape_text(f.shape) +
                                                   " but the grid has " + shape_text(want) +
                                                   "; write the mask on this grid or set grid.cells to its shape");
  std::vector<double> mask = f.as_double();
  for (std::size_t i = 0; i < mask.size(); ++i)
    if (mask[i] != 0.0 && mask[i] != 1.0)
      throw c.error_at("model", "obstacle_file", "dataset '" + dataset + "' in " + file + " holds " + std::to_string(mask[i]) +
                                                     " at flat index " + std::to_string(i) +
                                                     "; expected 0 (solid) or 1 (fluid) in every cell: fix the file");
  return mask;
}

/// Whether the cell centred at x (relative to the obstacle's centre) is inside the shape.
template <int Rank>
bool inside(const std::string& kind, const double (&x)[Rank], double radius, const std::vector<double>& size) {
  if (kind == "box") {
    for (int d = 0; d < Rank; ++d)
      if (std::abs(x[d]) > 0.5 * size[std::size_t(d)]) return false;
    return true;
  }
  double r2 = x[0] * x[0] + x[1] * x[1];  // a cylinder: along z in 3D
  if (kind == "sphere") r2 += x[Rank - 1] * x[Rank - 1];
  return r2 <= radius * radius;
}

}  // namespace

template <int Rank>
std::vector<double> obstacle_fluid_mask(const io::Config& c, const Grid<Rank>& global) {
  const std::string kind = c.string("model", "obstacle");
  if (kind == "none") return {};
  if (kind == "sphere" && Rank == 2)
    throw c.error_at("model", "obstacle", "a sphere needs a 3D grid; on a 2D grid use obstacle = \"cylinder\"");
  std::vector<double> fluid;
  if (kind == "mask") {
    fluid = read_mask(c, global);
  } else {
    const std::string axes = Rank == 2 ? "[x, y]" : "[x, y, z]";
    const std::vector<double>& centre = c.reals("model", "obstacle_center");
    const std::vector<double>& size = c.reals("model", "obstacle_size");
    if (centre.size() != std::size_t(Rank))
      throw c.error_at("model", "obstacle_center", "expected " + std::to_string(Rank) + " coordinates " + axes);
    if (kind == "box" && size.size() != std::size_t(Rank))
      throw c.error_at("model", "obstacle_size", "expected " + std::to_string(Rank) + " lengths " + axes);
    const double radius = c.real("model", "obstacle_radius");
    index_t cells = 1;
    for (int d = 0; d < Rank; ++d) cells *= global.cells.n[d];
    fluid.assign(std::size_t(cells), 1.0);
    for (index_t q = 0; q < cells; ++q) {
      double x[Rank];
      index_t rest = q;
      for (int d = Rank - 1; d >= 0; --d) {
        x[d] = global.center(d, rest % global.cells.n[d]) - centre[std::size_t(d)];
        rest /= global.cells.n[d];
      }
      if (inside<Rank>(kind, x, radius, size)) fluid[std::size_t(q)] = 0.0;
    }
  }
  std::size_t solid = 0;
  for (double f : fluid) solid += f == 0.0 ? 1 : 0;
  const std::string key = kind == "mask" ? "obstacle_file" : "obstacle";
  if (solid == 0) throw c.error_at("model", key, "the " + kind + " covers no cell centre; enlarge it or refine the grid");
  if (solid == fluid.size()) throw c.error_at("model", key, "the " + kind + " covers the whole domain");
  return fluid;
}

template std::vector<double> obstacle_fluid_mask<2>(const io::Config&, const Grid<2>&);
template std::vector<double> obstacle_fluid_mask<3>(const io::Config&, const Grid<3>&);

}  // namespace sim::fluid
