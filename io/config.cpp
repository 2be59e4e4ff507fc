#include "io/config.hpp"

#include "io/config_text.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <type_traits>
#include <variant>
#include <sstream>

namespace sim::io {
namespace {

using Raw = detail::RawValue;
using Kind = Raw::Kind;
constexpr const char* kCommandLine = "command line";

// ---- text helpers

std::string trim(const std::string& s) {
  auto b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// ---- what a parameter expects

bool is_array(ParamType t) { return t == ParamType::integers || t == ParamType::reals || t == ParamType::strings; }

ParamType element_type(ParamType t) {
  switch (t) {
    case ParamType::integers: return ParamType::integer;
    case ParamType::reals: return ParamType::real;
    case ParamType::strings: return ParamType::string;
    default: return t;
  }
}

std::string range_text(const Param& p) {
  auto num = [](double d) { return fmt_real(d, false); };
  bool lo = std::isfinite(p.min), hi = std::isfinite(p.max);
  if (lo && hi) return "in " + std::string(p.min_excluded ? "(" : "[") + num(p.min) + ", " + num(p.max) + "]";
  if (lo) return (p.min_excluded ? "> " : ">= ") + num(p.min);
  if (hi) return "<= " + num(p.max);
  return "";
}

std::string choices_text(const Param& p) { return "one of " + join(p.choices, quote); }

/// What one value (or element) of p must be: "a real >= 0", "one of \"a\", \"b\"".
std::string scalar_expected(const Param& p) {
  ParamType t = element_type(p.type);
  std::string range = range_text(p);
  switch (t) {
    case ParamType::boolean: return "a boolean (true or false)";
    case ParamType::integer: return range.empty() ? "an integer" : "an integer " + range;
    case ParamType::real: return range.empty() ? "a real" : "a real " + range;
    default: return p.choices.empty() ? "a string" : choices_text(p);
  }
}

/// What p must be: "an integer in [1, 4]", "an array of 1 to 3 integers, each >= 1".
std::string expected(const Param& p) {
  if (!is_array(p.type)) return scalar_expected(p);
  const char* noun = p.type == ParamType::integers ? "integers" : p.type == ParamType::reals ? "reals" : "strings";
  std::string count;
  if (p.min_length == p.max_length) {
    count = std::to_string(p.min_length) + " ";
  } else if (p.max_length != SIZE_MAX) {
    count = std::to_string(p.min_length) + " to " + std::to_string(p.max_length) + " ";
  } else if (p.min_length > 0) {
    count = "at least " + std::to_string(p.min_length) + " ";
  }
  std::string each = p.type == ParamType::strings ? (p.choices.empty() ? "" : choices_text(p)) : range_text(p);
  return "an array of " + count + noun + (each.empty() ? "" : ", each " + each);
}

// ---- conversion of raw values

/// Converts one scalar to type t of p; on failure sets err to "expected ..., found ...[; fix]".
Value convert_scalar(const Raw& r, ParamType t, const Param& p, std::string& err) {
  const std::string found = describe(r);
  auto out_of_range = [&](double d) { return d < p.min || (p.min_excluded && d == p.min) || d > p.max; };
  switch (t) {
    case ParamType::boolean:
      if (r.kind == Kind::boolean) return r.scalar;
      err = "expected a boolean (true or false), found " + found;
      return {};
    case ParamType::integer:
      if (r.kind == Kind::integer) {
        auto i = std::get<std::int64_t>(r.scalar);
        if (out_of_range(static_cast<double>(i))) err = "expected " + scalar_expected(p) + ", found " + found;
        return i;
      }
      err = "expected an integer, found " + found;
      if (r.kind == Kind::real) {
        double d = std::get<double>(r.scalar);
        if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e18)
          err += "; write " + std::to_string(static_cast<std::int64_t>(d)) + " (no decimal point)";
      }
      return {};
    case ParamType::real: {
      double d;
      if (r.kind == Kind::integer) {
        d = static_cast<double>(std::get<std::int64_t>(r.scalar));
      } else if (r.kind == Kind::real) {
        d = std::get<double>(r.scalar);
      } else {
        err = "expected a real, found " + found;
        return {};
      }
      if (!std::isfinite(d)) {
        err = "expected a finite real" + (range_text(p).empty() ? "" : " " + range_text(p)) + ", found " + found;
      } else if (out_of_range(d)) {
        err = "expected " + scalar_expected(p) + ", found " + found;
      }
      return d;
    }
    default: {
      if (r.kind != Kind::string) {
        err = "expected a string, found " + found;
        if (r.kind != Kind::table && r.kind != Kind::array) err += "; put it in quotes: " + quote(found);
        return {};
      }
      const auto& s = std::get<std::string>(r.scalar);
      if (!p.choices.empty() && std::find(p.choices.begin(), p.choices.end(), s) == p.choices.end()) {
        err = "expected " + choices_text(p) + ", found " + found;
        std::string near = nearest(s, p.choices);
        if (!near.empty()) err += "; did you mean " + quote(near) + "?";
      }
      return s;
    }
  }
}

template <class T>
std::vector<T> collect(const std::vector<Value>& elems) {
  std::vector<T> out;
  out.reserve(elems.size());
  for (const auto& e : elems) out.push_back(std::get<T>(e));
  return out;
}

/// Converts r to p's type; on failure sets err and points where at the offending value.
Value convert(const Raw& r, const Param& p, std::string& err, SourceLoc& where) {
  where = r.loc;
  if (!is_array(p.type)) return convert_scalar(r, p.type, p, err);
  const ParamType et = element_type(p.type);
  if (r.kind != Kind::array) {
    std::string scalar_err;
    convert_scalar(r, et, p, scalar_err);
    err = "expected " + expected(p) + ", found " + describe(r);
    if (scalar_err.empty() && p.min_length <= 1) err += "; write [" + describe(r) + "]";
    return {};
  }
  const std::size_t n = r.items.size();
  if (n < p.min_length || n > p.max_length) {
    err = "expected " + expected(p) + ", found " + std::to_string(n) + (n == 1 ? " entry" : " entries");
    if (n > 0) err += " " + describe(r);
    return {};
  }
  std::vector<Value> elems;
  for (std::size_t i = 0; i < n; ++i) {
    elems.push_back(convert_scalar(r.items[i], et, p, err));
    if (!err.empty()) {
      err = "element " + std::to_string(i + 1) + ": " + err;
      where = r.items[i].loc;
      return {};
    }
  }
  if (et == ParamType::integer) return collect<std::int64_t>(elems);
  if (et == ParamType::real) return collect<double>(elems);
  return collect<std::string>(elems);
}

// ---- toml++ to raw values

SourceLoc loc_of(const toml::source_region& src, const std::string& file) {
  return {file, static_cast<int>(src.begin.line), static_cast<int>(src.begin.column)};
}

Raw to_raw(const toml::node& n, const std::string& file) {
  Raw r;
  r.loc = loc_of(n.source(), file);
  switch (n.type()) {
    case toml::node_type::boolean: r.kind = Kind::boolean, r.scalar = n.as_boolean()->get(); break;
    case toml::node_type::integer: r.kind = Kind::integer, r.scalar = n.as_integer()->get(); break;
    case toml::node_type::floating_point: r.kind = Kind::real, r.scalar = n.as_floating_point()->get(); break;
    case toml::node_type::string: r.kind = Kind::string, r.scalar = n.as_string()->get(); break;
    case toml::node_type::table: r.kind = Kind::table; break;
    case toml::node_type::array:
      r.kind = Kind::array;
      for (const auto& e : *n.as_array()) r.items.push_back(to_raw(e, file));
      break;
    default: {  // dates and times
      std::ostringstream os;
      if (auto* v = n.as_date()) os << *v;
      if (auto* v = n.as_time()) os << *v;
      if (auto* v = n.as_date_time()) os << *v;
      r.text = os.str();
    }
  }
  return r;
}

void relocate(Raw& r, const SourceLoc& loc) {
  r.loc = loc;
  for (auto& e : r.items) relocate(e, loc);
}

bool before(const SourceLoc& a, const SourceLoc& b) {
  return a.line != b.line ? a.line < b.line : a.column < b.column;
}

const Schema* find_schema(const std::vector<Schema>& schemas, const std::string& name) {
  for (const auto& s : schemas)
    if (s.section == name) return &s;
  return nullptr;
}

const Param* find_param(const Schema& s, const std::string& name) {
  for (const auto& p : s.params)
    if (p.name == name) return &p;
  return nullptr;
}

std::vector<std::string> param_names(const Schema& s) {
  std::vector<std::string> out;
  for (const auto& p : s.params) out.push_back(p.name);
  return out;
}

std::string section_list(const std::vector<Schema>& schemas) {
  return join(schemas, [](const Schema& s) { return "[" + s.section + "]"; });
}

/// The command line wins over the file for keys that exclude each other (Schema::exclusive):
/// one of a pair given on the command line drops the file's other; both given there stay.
void drop_excluded_by_overrides(Config::Section& s, const Schema& schema) {
  auto overridden = [&](const std::string& key) {
    return std::any_of(s.items.begin(), s.items.end(),
                       [&](const Config::Item& it) { return it.key == key && !it.override_text.empty(); });
  };
  for (const auto& [a, b] : schema.exclusive) {
    const bool a_given = overridden(a), b_given = overridden(b);
    if (a_given == b_given) continue;
    const std::string& dropped = a_given ? b : a;
    s.items.erase(std::remove_if(s.items.begin(), s.items.end(),
                                 [&](const Config::Item& it) { return it.key == dropped && it.override_text.empty(); }),
                  s.items.end());
  }
}

/// Entries of an array value; 0 for a scalar.
template <class T>
std::size_t entries(const std::vector<T>& v) { return v.size(); }
template <class T>
std::size_t entries(const T&) { return 0; }

/// v made n copies of its first entry (arrays that are not empty; scalars stay).
template <class T>
void repeat_first(std::vector<T>& v, std::size_t n) {
  if (!v.empty()) v.assign(n, T(v.front()));
}
template <class T>
void repeat_first(T&, std::size_t) {}

/// Unset arrays of s that follow another key (Param::per_entry_of) take their default's first
/// entry once per entry of that key's value.
void repeat_defaults_per_entry(Config::Section& s, const Schema& schema) {
  for (const Param& p : schema.params) {
    if (p.per_entry_of.empty()) continue;
    const Config::Item* count = nullptr;
    for (const auto& it : s.items)
      if (it.key == p.per_entry_of && it.value) count = &it;
    if (!count) continue;
    const std::size_t n = std::visit([](const auto& v) { return entries(v); }, *count->value);
    for (auto& it : s.items)
      if (!it.set && it.key == p.name && it.value) std::visit([n](auto& v) { repeat_first(v, n); }, *it.value);
  }
}

}  // namespace

// ---- parsing

Config Config::load(const std::string& path, const std::vector<std::string>& overrides) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ConfigError(path + ": error: cannot read the config file: " + std::strerror(errno));
  std::ostringstream text;
  text << in.rdbuf();
  return parse(text.str(), path, overrides);
}

Config Config::parse(const std::string& toml_text, const std::string& file, const std::vector<std::string>& overrides) {
  Config c;
  c.file_ = file;
  toml::table root;
  try {
    root = toml::parse(std::string_view(toml_text), std::string_view(file));
  } catch (const toml::parse_error& e) {
    std::string what(e.description());
    const std::string prefix = "Error while parsing ";
    if (what.rfind(prefix, 0) == 0) what = what.substr(prefix.size());
    if (what.find("control characters") != std::string::npos)
      what += "; is the closing quote of a string missing?";
    throw ConfigError(loc_text(loc_of(e.source(), file)) + ": error: invalid TOML: " + what);
  }
  for (auto&& [key, node] : root) {
    const std::string name(key.str());
    if (const auto* table = node.as_table()) {
      Section& s = c.section(name, loc_of(table->source(), file));
      for (auto&& [k, v] : *table) s.items.push_back(Item{std::string(k.str()), to_raw(v, file), loc_of(k.source(), file), "", true, std::nullopt});
      std::sort(s.items.begin(), s.items.end(), [](const Item& a, const Item& b) { return before(a.loc, b.loc); });
      if (s.loc.line == 0 && !s.items.empty()) s.loc = s.items.front().loc;
    } else {
      c.section("", SourceLoc{file, 0, 0}).items.push_back(Item{name, to_raw(node, file), loc_of(key.source(), file), "", true, std::nullopt});
    }
  }
  // File order, so that validate() reports the first error of the file; top-level keys first.
  for (auto& s : c.sections_)
    if (s.name.empty())
      std::sort(s.items.begin(), s.items.end(), [](const Item& a, const Item& b) { return before(a.loc, b.loc); });
  std::stable_sort(c.sections_.begin(), c.sections_.end(), [](const Section& a, const Section& b) {
    return a.name.empty() != b.name.empty() ? a.name.empty() : before(a.loc, b.loc);
  });
  for (const auto& o : overrides) c.apply_override(o);
  return c;
}

void Config::apply_override(const std::string& text) {
  const std::string form = "; expected the form section.key=value (e.g. run.steps=100)";
  const auto eq = text.find('=');
  if (eq == std::string::npos)
    throw ConfigError(std::string(kCommandLine) + ": error: override '" + text + "' has no '='" + form);
  const std::string lhs = trim(text.substr(0, eq)), rhs = trim(text.substr(eq + 1));
  const auto dot = lhs.find('.');
  if (dot == std::string::npos || dot == 0 || dot + 1 == lhs.size())
    throw ConfigError(std::string(kCommandLine) + ": error: override '" + text + "' does not name a section and a key" + form);
  const SourceLoc here{kCommandLine, 0, 0};
  Raw raw;
  raw.kind = Kind::other;
  if (rhs.find('\n') == std::string::npos) {
    try {
      toml::table t = toml::parse("v = " + rhs);
      if (t.size() == 1 && t.contains("v")) raw = to_raw(*t.get("v"), kCommandLine);
    } catch (const toml::parse_error&) {
    }
  }
  if (raw.kind == Kind::other && raw.text.empty()) raw.kind = Kind::string, raw.scalar = rhs;  // bare word
  relocate(raw, here);
  Section& s = section(lhs.substr(0, dot), here);
  const std::string key = lhs.substr(dot + 1);
  s.items.erase(std::remove_if(s.items.begin(), s.items.end(), [&](const Item& it) { return it.key == key; }),
                s.items.end());
  s.items.push_back(Item{key, raw, here, text, true, std::nullopt});
}

Config::Section& Config::section(const std::string& name, const SourceLoc& loc) {
  for (auto& s : sections_)
    if (s.name == name) return s;
  sections_.push_back(Section{name, loc, {}});
  return sections_.back();
}

// ---- lookup

const Config::Item* Config::find(const std::string& section, const std::string& key) const {
  for (const auto& s : sections_)
    if (s.name == section)
      for (const auto& it : s.items)
        if (it.key == key) return &it;
  return nullptr;
}

const Config::Item& Config::item(const std::string& section, const std::string& key) const {
  const Item* it = find(section, key);
  if (!it || !it->value)
    throw sim::Error("config: [" + section + "] " + key + " has no value (is it in the schemas given to validate()?)");
  return *it;
}

std::optional<std::string> Config::raw_string(const std::string& section, const std::string& key) const {
  const Item* it = find(section, key);
  if (!it || !it->set || it->raw.kind != Kind::string) return std::nullopt;
  return std::get<std::string>(it->raw.scalar);
}

std::vector<std::string> Config::raw_strings(const std::string& section, const std::string& key) const {
  std::vector<std::string> out;
  const Item* it = find(section, key);
  if (!it || !it->set) return out;
  if (it->raw.kind == Kind::string) return {std::get<std::string>(it->raw.scalar)};
  if (it->raw.kind == Kind::array)
    for (const Raw& r : it->raw.items)
      if (r.kind == Kind::string) out.push_back(std::get<std::string>(r.scalar));
  return out;
}

const Value& Config::value(const std::string& section, const std::string& key) const { return *item(section, key).value; }

namespace {
template <class T>
const T& typed(const Value& v, const std::string& section, const std::string& key, ParamType asked) {
  if (const T* p = std::get_if<T>(&v)) return *p;
  throw sim::Error("config: [" + section + "] " + key + " is not " + type_name(asked) + " but holds " + to_text(v));
}
}  // namespace

bool Config::boolean(const std::string& s, const std::string& k) const {
  return typed<bool>(value(s, k), s, k, ParamType::boolean);
}
std::int64_t Config::integer(const std::string& s, const std::string& k) const {
  return typed<std::int64_t>(value(s, k), s, k, ParamType::integer);
}
double Config::real(const std::string& s, const std::string& k) const {
  return typed<double>(value(s, k), s, k, ParamType::real);
}
const std::string& Config::string(const std::string& s, const std::string& k) const {
  return typed<std::string>(value(s, k), s, k, ParamType::string);
}
const std::vector<std::int64_t>& Config::integers(const std::string& s, const std::string& k) const {
  return typed<std::vector<std::int64_t>>(value(s, k), s, k, ParamType::integers);
}
const std::vector<double>& Config::reals(const std::string& s, const std::string& k) const {
  return typed<std::vector<double>>(value(s, k), s, k, ParamType::reals);
}
const std::vector<std::string>& Config::strings(const std::string& s, const std::string& k) const {
  return typed<std::vector<std::string>>(value(s, k), s, k, ParamType::strings);
}

bool Config::is_set(const std::string& section, const std::string& key) const {
  const Item* it = find(section, key);
  return it && it->set;
}

SourceLoc Config::where(const std::string& section, const std::string& key) const {
  const Item* it = find(section, key);
  if (!it) throw sim::Error("config: [" + section + "] " + key + " is not in the config");
  return it->set ? it->loc : SourceLoc{"default", 0, 0};
}

const std::string& Config::file() const { return file_; }

const std::vector<Config::Section>& Config::sections() const { return sections_; }

// ---- errors

ConfigError Config::error_at(const Item& it, const SourceLoc& loc, const std::string& message) const {
  if (!it.override_text.empty()) {  // a long value is cut: the message names the key, not the whole value again
    const std::string& o = it.override_text;
    const std::string shown = o.size() > 80 ? o.substr(0, 60) + "...(" + std::to_string(o.size()) + " bytes)" : o;
    return ConfigError(std::string(kCommandLine) + ": '" + shown + "': error: " + message);
  }
  return ConfigError(loc_text(loc) + ": error: " + message);
}

ConfigError Config::error_at_section(const std::string& section, const std::string& message) const {
  for (const auto& s : sections_)
    if (s.name == section && s.loc.file == file_ && s.loc.line > 0) return ConfigError(loc_text(s.loc) + ": error: " + message);
  return ConfigError(file_ + ": error: " + message);
}

ConfigError Config::error_at(const Section& s, const std::string& message) const {
  if (s.loc.file == kCommandLine && !s.items.empty()) return error_at(s.items.front(), s.loc, message);
  return ConfigError(loc_text(s.loc) + ": error: " + message);
}

ConfigError Config::error_at(const std::string& section, const std::string& key, const std::string& message) const {
  const std::string msg = "[" + section + "] " + key + ": " + message;
  const Item* it = find(section, key);
  return it && it->set ? error_at(*it, it->loc, msg) : error_at_section(section, msg);
}

ConfigError Config::outside_section_error(const Item& it, const std::vector<Schema>& schemas) const {
  if (find_schema(schemas, it.key))
    return error_at(it, it.loc, "'" + it.key + "' must be a section: write [" + it.key + "] on a line of its own, then its keys");
  for (const auto& s : schemas)
    if (find_param(s, it.key))
      return error_at(it, it.loc, "key '" + it.key + "' is outside any section; put it under [" + s.section + "]");
  return error_at(it, it.loc, "key '" + it.key + "' is outside any section; keys go under a section header (" +
                                  section_list(schemas) + ")");
}

// ---- validation

void Config::validate(const std::vector<Schema>& schemas) {
  Config c = *this;  // all or nothing: *this changes only when everything is valid
  for (auto& s : c.sections_)  // forget the defaults of an earlier validate()
    s.items.erase(std::remove_if(s.items.begin(), s.items.end(), [](const Item& it) { return !it.set; }), s.items.end());
  c.sections_.erase(std::remove_if(c.sections_.begin(), c.sections_.end(), [](const Section& s) { return s.loc.file.empty(); }),
                    c.sections_.end());

  for (auto& s : c.sections_) {
    if (s.name.empty()) {
      if (!s.items.empty()) throw c.outside_section_error(s.items.front(), schemas);
      continue;
    }
    const Schema* schema = find_schema(schemas, s.name);
    if (!schema) {
      std::vector<std::string> names;
      for (const auto& sc : schemas) names.push_back(sc.section);
      const std::string near = nearest(s.name, names);
      const std::string msg = "unknown section [" + s.name + "]" +
                              (near.empty() ? "; known sections: " + section_list(schemas) : "; did you mean [" + near + "]?");
      throw c.error_at(s, msg);
    }
    drop_excluded_by_overrides(s, *schema);
    for (auto& it : s.items) {
      const Param* p = find_param(*schema, it.key);
      for (const auto& r : schema->retired)
        if (!p && r.first == it.key) throw c.error_at(it, it.loc, "[" + s.name + "] " + it.key + " " + r.second);
      if (!p) {
        std::string msg = "unknown key '" + it.key + "' in [" + s.name + "]";
        const std::string near = nearest(it.key, param_names(*schema));
        const Schema* other = nullptr;
        for (const auto& sc : schemas)
          if (!other && &sc != schema && find_param(sc, it.key)) other = &sc;
        if (!near.empty()) {
          msg += "; did you mean '" + near + "'?";
        } else if (other) {
          msg += "; did you mean [" + other->section + "] " + it.key + "?";
        } else {
          if (it.raw.kind == Kind::table) msg += " (sections cannot hold tables)";
          msg += "; known keys: " + join(param_names(*schema), [](const std::string& n) { return n; });
        }
        throw c.error_at(it, it.loc, msg);
      }
      std::string err;
      SourceLoc where;
      Value v = convert(it.raw, *p, err, where);
      if (!err.empty()) throw c.error_at(it, where, "[" + s.name + "] " + it.key + ": " + err);
      it.value = std::move(v);
    }
  }

  for (const auto& schema : schemas) {
    for (const auto& p : schema.params) {
      if (c.find(schema.section, p.name)) continue;
      if (!p.default_value)
        throw c.error_at_section(schema.section, "[" + schema.section + "] " + p.name + ": required key missing (expected " +
                                                     expected(p) + "); add " + p.name + " = ... under [" + schema.section + "]");
      Item it{p.name, Raw{}, SourceLoc{}, "", false, p.default_value};
      c.section(schema.section, SourceLoc{}).items.push_back(std::move(it));
    }
  }

  for (const auto& schema : schemas)
    for (auto& s : c.sections_)
      if (s.name == schema.section) repeat_defaults_per_entry(s, schema);
  *this = std::move(c);
}

// ---- output

std::string Config::to_toml(const std::vector<Schema>& schemas, bool with_docs) const {
  std::ostringstream os;
  for (std::size_t i = 0; i < schemas.size(); ++i) {
    const Schema& schema = schemas[i];
    if (i) os << "\n";
    if (with_docs && !schema.doc.empty()) os << "# " << schema.doc << "\n";
    os << "[" << schema.section << "]\n";
    for (const auto& p : schema.params) {
      if (with_docs) {
        os << "# " << p.doc << (p.unit.empty() ? "" : " [" + p.unit + "]") << "; " << expected(p);
        os << (p.default_value ? "; default " + to_text(*p.default_value) : "; required") << "\n";
      }
      const Item* it = find(schema.section, p.name);
      if (!it || !it->value) continue;
      if (!it->set) os << "# ";
      os << key_text(p.name) << " = " << to_text(*it->value) << (it->set ? "" : "  # default") << "\n";
    }
  }
  return os.str();
}

// ---- suggestions

std::string nearest(const std::string& word, const std::vector<std::string>& candidates) {
  auto lower = [](std::string s) {
    for (auto& ch : s) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
    return s;
  };
  // Optimal string alignment distance: insertions, deletions, substitutions, adjacent swaps.
  auto distance = [](const std::string& a, const std::string& b) {
    std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
    for (std::size_t i = 0; i <= a.size(); ++i) d[i][0] = i;
    for (std::size_t j = 0; j <= b.size(); ++j) d[0][j] = j;
    for (std::size_t i = 1; i <= a.size(); ++i)
      for (std::size_t j = 1; j <= b.size(); ++j) {
        d[i][j] = std::min({d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + (a[i - 1] != b[j - 1])});
        if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 1);
      }
    return d[a.size()][b.size()];
  };
  const std::string w = lower(word);
  std::string best;
  std::size_t best_d = std::max<std::size_t>(2, word.size() / 3) + 1;
  for (const auto& c : candidates) {
    std::size_t d = distance(w, lower(c));
    if (d < best_d) best = c, best_d = d;
  }
  return best;
}

}  // namespace sim::io
