// XDMF 3 writer. Dimensions, origin and spacing are listed slowest first, as in the HDF5
// datasets (ParaView's X is the datasets' last, contiguous dimension). CoRectMesh geometry
// describes points, so the topology has cells + 1 points per axis; fields are Center="Cell".
// 1-D grids are written as a 2DCoRectMesh one cell thick (a leading extent of 1 cell, whose
// spacing is the x spacing), with the 1-D dataset as its cell data.
#include "io/xdmf.hpp"
#include "io/number_text.hpp"

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace sim::io {
namespace {

std::string xml_escape(const std::string& s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&apos;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string num(double v) { return shortest_text(v); }
std::string num(std::int64_t v) { return std::to_string(v); }

template <class T>
std::string list(const std::vector<T>& v) {
  std::string s;
  for (std::size_t i = 0; i < v.size(); ++i) s += (i ? " " : "") + num(v[i]);
  return s;
}

/// A 3D grid's cell-centred velocity u, v, w (when the entry has all three) as one Vector
/// attribute "velocity", for glyphs and stream tracers. ParaView's X is the datasets' last
/// dimension, so its (X, Y, Z) components are (w, v, u).
std::string velocity_vector(const XdmfEntry& e, const std::vector<std::int64_t>& points) {
  const FieldView* c[3] = {nullptr, nullptr, nullptr};
  for (const FieldView& f : e.fields)
    for (int k = 0; k < 3; ++k)
      if (f.name == std::string(1, "uvw"[k])) c[k] = &f;
  if (!c[0] || !c[1] || !c[2]) return "";
  std::vector<std::int64_t> cells;
  for (std::int64_t p : points) cells.push_back(p - 1);
  std::vector<std::int64_t> joined = cells;
  joined.push_back(3);
  std::ostringstream x;
  x << "        <Attribute Name=\"velocity\" AttributeType=\"Vector\" Center=\"Cell\">\n"
    << "          <DataItem ItemType=\"Function\" Function=\"JOIN($0, $1, $2)\" Dimensions=\"" << list(joined) << "\">\n";
  for (int k : {2, 1, 0})
    x << "            <DataItem Dimensions=\"" << list(cells) << "\" NumberType=\"Float\" Precision=\"" << (c[k]->is_double ? 8 : 4)
      << "\" Format=\"HDF\">" << xml_escape(e.file) << ":/fields/" << c[k]->name << "</DataItem>\n";
  x << "          </DataItem>\n        </Attribute>\n";
  return x.str();
}

}  // namespace

void write_xdmf(const std::string& path, const GridInfo& grid, const std::vector<XdmfEntry>& entries) {
  const std::size_t r = grid.cells.size();
  SIM_REQUIRE(grid.rank >= 1 && grid.rank <= 3 && r == std::size_t(grid.rank) && grid.origin.size() == r &&
                  grid.spacing.size() == r,
              sim::ShapeError, path + ": XDMF needs a 1-, 2- or 3-D grid with one cell count, origin and spacing per dimension");
  // Mesh as XDMF sees it: a 1-D grid gets a leading dimension one cell thick.
  std::vector<std::int64_t> points;
  std::vector<double> origin = grid.origin, spacing = grid.spacing;
  if (r == 1) {
    points.push_back(2);
    origin.insert(origin.begin(), 0.0);
    spacing.insert(spacing.begin(), grid.spacing[0]);
  }
  for (std::int64_t n : grid.cells) points.push_back(n + 1);
  const std::size_t mesh_rank = points.size();
  const std::string topology = mesh_rank == 3 ? "3DCoRectMesh" : "2DCoRectMesh";
  const std::string geometry = mesh_rank == 3 ? "ORIGIN_DXDYDZ" : "ORIGIN_DXDY";

  std::ostringstream x;
  x << "<?xml version=\"1.0\" ?>\n<!DOCTYPE Xdmf SYSTEM \"Xdmf.dtd\" []>\n"
    << "<Xdmf Version=\"3.0\" xmlns:xi=\"http://www.w3.org/2001/XInclude\">\n  <Domain>\n"
    << "    <Grid Name=\"TimeSeries\" GridType=\"Collection\" CollectionType=\"Temporal\">\n";
  for (const XdmfEntry& e : entries) {
    x << "      <Grid Name=\"step_" << e.step << "\" GridType=\"Uniform\">\n"
      << "        <Time Value=\"" << num(e.time) << "\"/>\n"
      << "        <Topology TopologyType=\"" << topology << "\" Dimensions=\"" << list(points) << "\"/>\n"
      << "        <Geometry GeometryType=\"" << geometry << "\">\n"
      << "          <DataItem Name=\"Origin\" Dimensions=\"" << mesh_rank
      << "\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << list(origin) << "</DataItem>\n"
      << "          <DataItem Name=\"Spacing\" Dimensions=\"" << mesh_rank
      << "\" NumberType=\"Float\" Precision=\"8\" Format=\"XML\">" << list(spacing) << "</DataItem>\n"
      << "        </Geometry>\n";
    for (const FieldView& f : e.fields) {
      SIM_REQUIRE(f.shape == grid.cells, sim::ShapeError,
                  path + ": field '" + f.name + "' of " + e.file + " does not have the grid's shape");
      x << "        <Attribute Name=\"" << xml_escape(f.name) << "\" AttributeType=\"Scalar\" Center=\"Cell\">\n"
        << "          <DataItem Dimensions=\"" << list(f.shape) << "\" NumberType=\"Float\" Precision=\""
        << (f.is_double ? 8 : 4) << "\" Format=\"HDF\">" << xml_escape(e.file) << ":/fields/" << xml_escape(f.name)
        << "</DataItem>\n        </Attribute>\n";
    }
    if (r == 3) x << velocity_vector(e, points);
    x << "      </Grid>\n";
  }
  x << "    </Grid>\n  </Domain>\n</Xdmf>\n";

  const std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << x.str();
    out.close();
    if (!out) {
      std::remove(tmp.c_str());
      throw FileError(path + ": cannot write " + tmp);
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw FileError(path + ": cannot rename " + tmp + " to it: " + ec.message());
  }
}

}  // namespace sim::io
