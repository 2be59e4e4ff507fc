#include <cstdio>

#include "core/runtime/error.hpp"
#include "io/config.hpp"
#include "models/model.hpp"
#include "models/run/framework_schema.hpp"

namespace sim {

void Model::check_dt(double dt) const {
  const double limit = stable_dt();
  if (dt > limit) {
    char buf[256];
    std::snprintf(buf, sizeof buf, "dt = %.6g is beyond the stability limit of this scheme; the largest stable dt is %.6g",
                  dt, limit);
    throw Error(buf);
  }
}

std::vector<io::Schema> schemas_of(const ModelInfo& info, int grid_rank) {
  // a face's value means nothing to a model whose kinds take none (periodic, a scalar's wall)
  bool takes_value = !info.boundary_value_doc.empty();
  bool only_periodic = true;
  for (const std::string& k : info.boundary_kinds) only_periodic = only_periodic && k == "periodic";
  if (only_periodic) takes_value = false;
  const std::string value_doc = takes_value ? info.boundary_value_doc : "not used (no kind of this model takes a value)";
  std::vector<io::Schema> schemas = run::framework_schemas();
  for (io::Schema& s : schemas)
    if (s.section == "boundary") s = run::boundary_schema(info.boundary_kinds, info.boundary_default, value_doc, grid_rank);
  schemas.push_back(info.schema);
  return schemas;
}

void ModelRegistry::add(ModelInfo info) {
  if (find(info.name)) throw Error("a model called '" + info.name + "' is already registered");
  models_.push_back(std::move(info));
}

const ModelInfo* ModelRegistry::find(const std::string& name) const {
  for (const ModelInfo& m : models_)
    if (m.name == name) return &m;
  return nullptr;
}

std::vector<std::string> ModelRegistry::names() const {
  std::vector<std::string> n;
  for (const ModelInfo& m : models_) n.push_back(m.name);
  return n;
}

}  // namespace sim
