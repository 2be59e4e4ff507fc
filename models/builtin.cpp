#include "models/fluid/fluid.hpp"
#include "models/heat/heat.hpp"
#include "models/mcpi/mcpi.hpp"
#include "models/model.hpp"

namespace sim {

ModelRegistry builtin_models() {
  ModelRegistry r;
  r.add(heat_model_info());
  r.add(mcpi_model_info());
  r.add(fluid_model_info());
  return r;
}

}  // namespace sim
