#pragma once
// Run configuration: a TOML file plus "section.key=value" overrides, validated against
// parameter schemas (the run driver's framework sections, models/run/framework_schema.hpp,
// and the model's). Every user error becomes one ConfigError
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
  /// One key as written (file or command line), or a default filled in by validate().
  struct Item {
    std::string key;
    detail::RawValue raw;
    SourceLoc loc;               ///< where the key starts
    std::string override_text;   ///< "section.key=value" for command-line values
    bool set = true;             ///< false: a filled-in default
    std::optional<Value> value;  ///< typed, after validate()
  };
  /// One section as written, with its keys.
  struct Section {
    std::string name;  ///< "" holds keys written outside any section
    SourceLoc loc;
    std::vector<Item> items;
  };

  /// Parses a TOML file (ConfigError on syntax errors, with line and column) and applies
  /// overrides "section.key=value" (value in TOML syntax; a bare word that is not valid TOML is
  /// taken as a string, so run.backend=cpu works). Does not validate against schemas yet.
  /// Overrides win over the file, also where keys exclude each other (Schema::exclusive,
  /// applied by validate()): run.steps=N drops the file's end_time, run.dt=X its cfl.
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
  /// An unset array that follows another key (Param::per_entry_of) gets its default's first
  /// entry once per entry of that key (grid.length: 1.0 per entry of grid.cells).
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

  /// The sections as written (file order, keys outside any section first), for checks made
  /// before validate() such as the model's name; defaults appear after validate().
  const std::vector<Section>& sections() const;
  /// section.key as written or filled in, or nullptr when absent.
  const Item* find(const std::string& section, const std::string& key) const;
  /// An error located at loc (its key or its value); a command-line item is named by its override.
  ConfigError error_at(const Item& it, const SourceLoc& loc, const std::string& message) const;
  /// An error located at section s's header, or at the override that made the section.
  ConfigError error_at(const Section& s, const std::string& message) const;
  /// An error located at [section]'s header in this file, else at the file.
  ConfigError error_at_section(const std::string& section, const std::string& message) const;
  /// The error for it, a key written outside any section: says which section of schemas holds
  /// it (or that it names a section), else lists the sections.
  ConfigError outside_section_error(const Item& it, const std::vector<Schema>& schemas) const;

 private:
  const Item& item(const std::string& section, const std::string& key) const;
  Section& section(const std::string& name, const SourceLoc& loc);
  void apply_override(const std::string& text);

  std::string file_;
  std::vector<Section> sections_;
};

/// Edit-distance suggestion: the candidate closest to `word`, or "" if none is close enough
/// (distance <= max(2, word.size()/3)).
std::string nearest(const std::string& word, const std::vector<std::string>& candidates);

}  // namespace sim::io
