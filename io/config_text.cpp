#include "io/config_text.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <variant>

namespace sim::io {

std::string fmt_real(double v, bool as_toml) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v > 0 ? "inf" : "-inf";
  char buf[40];
  for (int prec = 15; prec <= 17; ++prec) {
    std::snprintf(buf, sizeof buf, "%.*g", prec, v);
    if (std::strtod(buf, nullptr) == v) break;
  }
  std::string s = buf;
  if (as_toml && s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string quote(const std::string& s) {
  std::string out = "\"";
  for (unsigned char ch : s) {
    if (ch == '"' || ch == '\\') {
      out += '\\';
      out += static_cast<char>(ch);
    } else if (ch == '\n') {
      out += "\\n";
    } else if (ch == '\t') {
      out += "\\t";
    } else if (ch < 0x20 || ch == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\u%04X", ch);
      out += buf;
    } else {
      out += static_cast<char>(ch);
    }
  }
  return out + "\"";
}

std::string key_text(const std::string& k) {
  bool bare = !k.empty() && std::all_of(k.begin(), k.end(), [](unsigned char ch) {
    return std::isalnum(ch) || ch == '_' || ch == '-';
  });
  return bare ? k : quote(k);
}

std::string to_text(const Value& v) {
  struct Visitor {
    std::string operator()(bool b) const { return b ? "true" : "false"; }
    std::string operator()(std::int64_t i) const { return std::to_string(i); }
    std::string operator()(double d) const { return fmt_real(d); }
    std::string operator()(const std::string& s) const { return quote(s); }
    std::string operator()(const std::vector<std::int64_t>& a) const {
      return "[" + join(a, [](std::int64_t i) { return std::to_string(i); }) + "]";
    }
    std::string operator()(const std::vector<double>& a) const {
      return "[" + join(a, [](double d) { return fmt_real(d); }) + "]";
    }
    std::string operator()(const std::vector<std::string>& a) const { return "[" + join(a, quote) + "]"; }
  };
  return std::visit(Visitor{}, v);
}

std::string describe(const detail::RawValue& r) {
  using Kind = detail::RawValue::Kind;
  switch (r.kind) {
    case Kind::table: return "a table";
    case Kind::other: return r.text;
    case Kind::array: {
      std::string s = "[" + join(r.items, describe) + "]";
      return s.size() > 60 ? s.substr(0, 56) + " ...]" : s;
    }
    default: return to_text(r.scalar);
  }
}

std::string loc_text(const SourceLoc& l) {
  std::string s = l.file;
  if (l.line > 0) s += ":" + std::to_string(l.line) + (l.column > 0 ? ":" + std::to_string(l.column) : "");
  return s;
}

}  // namespace sim::io
