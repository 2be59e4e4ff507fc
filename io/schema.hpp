#pragma once
// Parameter schemas: what a config section may hold (name, type, default, range or choices,
// unit, doc). Models and the framework declare schemas; the config reader validates against
// them, fills defaults, and `simulate models` / `--print-config` print them. No TOML here.
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace sim::io {

enum class ParamType { boolean, integer, real, string, integers, reals, strings };

/// A config value: one of the schema's types.
using Value = std::variant<bool, std::int64_t, double, std::string, std::vector<std::int64_t>, std::vector<double>,
                           std::vector<std::string>>;

/// Name of a type as errors and `simulate models` print it ("real", "array of integers").
const char* type_name(ParamType t);

/// One parameter of a section, built by name, e.g.
///   Param::real("alpha", 1.0).at_least(0).in("m^2/s").says("thermal diffusivity")
///   Param::string("scheme", "euler").one_of({"euler", "rk2"}).says("time stepping")
struct Param {
  std::string name;
  ParamType type = ParamType::real;
  std::optional<Value> default_value;  ///< none: the key is required
  double min = -std::numeric_limits<double>::infinity();  ///< for numbers (each element of arrays)
  double max = std::numeric_limits<double>::infinity();
  bool min_excluded = false;         ///< numbers must be > min, not >= min (positive())
  std::vector<std::string> choices;  ///< for strings (each element of string arrays); empty: any
  std::string unit;                  ///< e.g. "m^2/s"; empty for dimensionless
  std::string doc;                   ///< one line
  std::size_t min_length = 0, max_length = SIZE_MAX;  ///< for arrays
  std::string per_entry_of;  ///< arrays left unset: the default's first entry once per entry of this key

  /// An empty parameter (a real called ""); the builders below make the others.
  Param() {}
  /// A real called name with this default.
  static Param real(std::string name, double def) { return make(std::move(name), ParamType::real, Value{def}); }
  /// An integer called name with this default.
  static Param integer(std::string name, std::int64_t def) { return make(std::move(name), ParamType::integer, Value{def}); }
  /// A boolean called name with this default.
  static Param boolean(std::string name, bool def) { return make(std::move(name), ParamType::boolean, Value{def}); }
  /// A string called name with this default.
  static Param string(std::string name, std::string def) {
    return make(std::move(name), ParamType::string, Value{std::move(def)});
  }
  /// An array of reals called name with this default.
  static Param reals(std::string name, std::vector<double> def) {
    return make(std::move(name), ParamType::reals, Value{std::move(def)});
  }
  /// An array of integers called name with this default.
  static Param integers(std::string name, std::vector<std::int64_t> def) {
    return make(std::move(name), ParamType::integers, Value{std::move(def)});
  }
  /// An array of strings called name with this default.
  static Param strings(std::string name, std::vector<std::string> def) {
    return make(std::move(name), ParamType::strings, Value{std::move(def)});
  }

  /// No default: the config must set the key.
  Param required() && { return default_value.reset(), std::move(*this); }
  /// Numbers >= lo.
  Param at_least(double lo) && { return min = lo, std::move(*this); }
  /// Numbers <= hi.
  Param at_most(double hi) && { return max = hi, std::move(*this); }
  /// Numbers in [lo, hi].
  Param range(double lo, double hi) && { return min = lo, max = hi, std::move(*this); }
  /// Numbers > 0 (errors say "> 0").
  Param positive() && { return min = 0, min_excluded = true, std::move(*this); }
  /// Strings one of these.
  Param one_of(std::vector<std::string> names) && { return choices = std::move(names), std::move(*this); }
  /// Arrays of lo to hi elements.
  Param lengths(std::size_t lo, std::size_t hi) && { return min_length = lo, max_length = hi, std::move(*this); }
  /// Arrays left unset: the default's first entry, once per entry of the array `key` of the same section.
  Param one_per_entry_of(std::string key) && { return per_entry_of = std::move(key), std::move(*this); }
  /// The unit, e.g. "m^2/s".
  Param in(std::string u) && { return unit = std::move(u), std::move(*this); }
  /// The one-line doc.
  Param says(std::string text) && { return doc = std::move(text), std::move(*this); }

 private:
  static Param make(std::string name, ParamType type, Value def) {
    Param p;
    p.name = std::move(name), p.type = type, p.default_value = std::move(def);
    return p;
  }
};

/// The parameters of one config section, e.g. "model" or "grid".
struct Schema {
  std::string section;
  std::string doc;
  std::vector<Param> params;
  /// Keys that were removed, each with what replaced it: a config that sets one is refused with
  /// "[section] key <text>", e.g. {"left", "was replaced by [boundary] x_lo (...)"}.
  std::vector<std::pair<std::string, std::string>> retired = {};
  /// Pairs of keys that exclude each other: one given on the command line drops the other from
  /// the file (both given stay, for a rule checked after validate() to refuse).
  std::vector<std::pair<std::string, std::string>> exclusive = {};
};

}  // namespace sim::io
