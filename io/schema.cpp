#include "io/schema.hpp"

namespace sim::io {

const char* type_name(ParamType t) {
  switch (t) {
    case ParamType::boolean: return "boolean";
    case ParamType::integer: return "integer";
    case ParamType::real: return "real";
    case ParamType::string: return "string";
    case ParamType::integers: return "array of integers";
    case ParamType::reals: return "array of reals";
    default: return "array of strings";
  }
}

}  // namespace sim::io
