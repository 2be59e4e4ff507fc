#pragma once
// Everything a model author needs: the array and grid API (sim::Halo, the ghost exchange of
// a decomposed model, included), the model interface, the config accessors for the [model]
// and [boundary] sections, and SIMKIT_PLUGIN to register models from a shared library that
// `simulate` loads ([run] plugins = [...] or --plugin, which replaces them).
#include "arrays.hpp"
#include "grid.hpp"
#include "random.hpp"
#include "solvers.hpp"
#include "io/config.hpp"
#include "models/boundary_config.hpp"
#include "models/field_ref.hpp"
#include "models/model.hpp"
#include "models/plugin.hpp"
