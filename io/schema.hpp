#pragma once
// Parameter schemas: what a config section may hold (name, type, default, range or choices,
// unit, doc). Models and the framework declare schemas; the config reader validates against
// them, fills defaults, and `simulate models` / `--print-config` print them. No TOML here.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace sim::io {

enum class ParamType { boolean, integer, real, string, integers, reals, strings };

/// A config value: one of the schema's types.
using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                           std::vector<std::string>>;

/// Name of a type as errors and `simulate models` print it ("real", "array of integers").
const char* type_name(ParamType t);

/// One parameter of a section.
struct Param {
  std::string name;
  ParamType type = ParamType::real;
  std::optional<Value> default_value;  ///< none: the key is required
  double min = -std::numeric_limits<double>::infinity();  ///< for numbers (each element of arrays)
  double max = std::numeric_limits<double>::infinity();
  std::vector<std::string> choices;  ///< for strings (each element of string arrays); empty: any
  std::string unit;                  ///< e.g. "m^2/s"; empty for dimensionless
  std::string doc;                   ///< one line
  std::size_t min_length = 0, max_length = SIZE_MAX;  ///< for arrays
};

/// The parameters of one config section, e.g. "model" or "grid".
struct Schema {
  std::string section;
  std::string doc;
  std::vector<Param> params;
};

}  // namespace sim::io
