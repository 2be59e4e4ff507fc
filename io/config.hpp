#pragma once
// Run configuration: a TOML file plus "section.key=value" overrides, validated against the
// parameter schemas of the framework and the model. Every user error becomes one ConfigError
// that names the file, line and column, the key, what was expected, what was found, and a fix.
// The TOML reader (toml++) lives in config.cpp only: this header is host- and nvcc-safe.
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "core/runtime/error.hpp"
#include "io/schema.hpp"

namespace sim::io {

/// A user error in a config file or override: message formatted as
/// "FILE:LINE:COL: error: [section] key: what was expected, what was found; fix" (location parts
/// omitted when unknown; for overrides FILE is "command line" and the override text is quoted).
struct ConfigError : sim::Error {
  using sim::Error::Error;
};

/// Where a value came from.
struct SourceLoc {
  std::string file;
  int line = 0, column = 0;
};

namespace detail {
/// A value as the TOML file holds it, before validation.
struct RawValue {
  enum class Kind { boolean, integer, real, string, array, table, other };
  Kind kind = Kind::other;
  Value scalar;                 ///< bool, int64, double or string for scalar kinds
  std::vector<RawValue> items;  ///< elements of an array
  std::string text;             ///< dates and times as written
  SourceLoc loc;                ///< where the value starts
};
}  // namespace detail

class Config {
 public:
  /// Parses a TOML file (ConfigError on syntax errors, with line and column) and applies
  /// overrides "section.key=value" (value in TOML syntax; a bare word that is not valid TOML is
  /// taken as a string, so run.backend=cpu works). Does not validate against schemas yet.
  /// Overrides win over the file, also where keys exclude each other: run.steps=N drops the
  /// file's end_time (run.end_time=T its steps), run.dt=X its cfl (run.cfl=C its dt).
  static Config load(const std::string& path, const std::vector<std::string>& overrides = {});
  /// Same from a string (file is the name used in messages).
  static Config parse(const std::string& toml_text, const std::string& file,
                      const std::vector<std::string>& overrides = {});

  /// The string value of section.key as written (before validation), if present and a string.
  std::optional<std::string> raw_string(const std::string& section, const std::string& key) const;
  /// The strings of section.key as written (a string or an array of strings; others skipped).
  std::vector<std::string> raw_strings(const std::string& section, const std::string& key) const;

  /// Validates every section present against the schemas (unknown section or key -> error
  /// suggesting the nearest known name by edit distance; wrong type; out of range; bad
  /// choice; array length; required key missing), converts integers written for reals, and
  /// fills defaults, so that afterwards every schema key of every schema section has a value
  /// (sections absent from the file still get their defaults). Throws the FIRST error found.
  /// Unset grid.length / grid.origin default to 1.0 / 0.0 per entry of grid.cells.
  void validate(const std::vector<Schema>& schemas);

  /// Typed access after validate(); throws sim::Error if the key is absent or of another type.
  bool boolean(const std::string& section, const std::string& key) const;
  std::int64_t integer(const std::string& section, const std::string& key) const;
  double real(const std::string& section, const std::string& key) const;
  const std::string& string(const std::string& section, const std::string& key) const;
  const std::vector<std::int64_t>& integers(const std::string& section, const std::string& key) const;
  const std::vector<double>& reals(const std::string& section, const std::string& key) const;
  const std::vector<std::string>& strings(const std::string& section, const std::string& key) const;
  const Value& value(const std::string& section, const std::string& key) const;
  /// True when the user set section.key (file or override), false for a filled-in default.
  bool is_set(const std::string& section, const std::string& key) const;
  /// Where section.key was set (file/line/column, or "command line"; file "default" for a
  /// filled-in default); throws sim::Error if the key is absent.
  SourceLoc where(const std::string& section, const std::string& key) const;
  /// An error located at section.key, formatted like the others (for framework and model
  /// rules checked after validate, e.g. "both dt and cfl given").
  ConfigError error_at(const std::string& section, const std::string& key, const std::string& message) const;

  /// The fully resolved config (defaults included) as TOML text, sections in schema order,
  /// keys in schema order, each preceded by a comment with its doc/unit/range when
  /// with_docs is true. Keys the user did not set are written commented out with their
  /// default ("# cfl = 0.9"), so that parsing this text and validating gives the same values
  /// and the same is_set() (rules such as "steps or end_time" still hold).
  std::string to_toml(const std::vector<Schema>& schemas, bool with_docs = false) const;
  /// The file this config was read from.
  const std::string& file() const;

 private:
  struct Item {
    std::string key;
    detail::RawValue raw;
    SourceLoc loc;               ///< where the key starts
    std::string override_text;   ///< "section.key=value" for command-line values
    bool set = true;             ///< false: a filled-in default
    std::optional<Value> value;  ///< typed, after validate()
  };
  struct Section {
    std::string name;  ///< "" holds keys written outside any section
    SourceLoc loc;
    std::vector<Item> items;
  };

  const Item* find(const std::string& section, const std::string& key) const;
  const Item& item(const std::string& section, const std::string& key) const;
  Section& section(const std::string& name, const SourceLoc& loc);
  void apply_override(const std::string& text);
  ConfigError error_at(const Item& it, const SourceLoc& loc, const std::string& message) const;
  ConfigError error_at_section(const std::string& section, const std::string& message) const;
  ConfigError outside_section_error(const Item& it, const std::vector<Schema>& schemas) const;
  friend void check_model_name(const Config& c, const std::vector<std::string>& registered);

  std::string file_;
  std::vector<Section> sections_;
};

/// Edit-distance suggestion: the candidate closest to `word`, or "" if none is close enough
/// (distance <= max(2, word.size()/3)).
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

/// The framework's own sections: [run], [grid], [output], [checkpoint], [boundary] (with the
/// scalar kinds: periodic, dirichlet, neumann).
std::vector<Schema> framework_schemas();
/// The [boundary] section for a model that accepts `kinds` (default_kind on faces not set), a
/// face's value meaning value_doc ("value (dirichlet) or outward gradient (neumann)"), with
/// the faces of the first `rank` dimensions (x, y, z).
Schema boundary_schema(const std::vector<std::string>& kinds, const std::string& default_kind, const std::string& value_doc,
                       int rank = 3);
/// Cross-field rules of the framework sections, checked after validate(): exactly one of
/// run.steps / run.end_time set; not both run.dt and run.cfl set; run.dt > 0 when set;
/// grid.length and grid.origin (when set) have as many entries as grid.cells.
void check_framework_rules(const Config& c);
/// Checks run.model before validate() (the model decides which schema applies): present, a
/// string, and one of `registered`; the ConfigError lists the registered names and suggests
/// the nearest. When [run] model is missing because the [run] header is misspelt ([runzz]),
/// the error names that section, where it is, and suggests [run].
void check_model_name(const Config& c, const std::vector<std::string>& registered);

}  // namespace sim::io
