#pragma once
// How config values, locations and lists read in messages and in the resolved config: the
// words every config error is built from, shared by the config reader and the run driver's
// rules so that both say things the same way.
#include <string>
#include <vector>

#include "io/config.hpp"

namespace sim::io {

/// Shortest text that reads back as v; integral values keep a ".0" when as_toml (TOML floats).
std::string fmt_real(double v, bool as_toml = true);
/// s as a TOML basic string, in double quotes with escapes.
std::string quote(const std::string& s);
/// A key as TOML writes it: bare when it can be, else quoted.
std::string key_text(const std::string& k);
/// A value in TOML syntax ("[1, 2]", "\"cpu\"", "0.5").
std::string to_text(const Value& v);
/// A raw value for "found ..." (tables named, long arrays cut).
std::string describe(const detail::RawValue& r);
/// "file:line:column" (the parts known).
std::string loc_text(const SourceLoc& l);

/// The items of v, each turned into text by each, between separators.
template <class T, class F>
std::string join(const std::vector<T>& v, F&& each, const char* sep = ", ") {
  std::string out;
  for (std::size_t i = 0; i < v.size(); ++i) out += (i ? sep : "") + each(v[i]);
  return out;
}

}  // namespace sim::io
