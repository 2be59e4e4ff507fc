#pragma once
// Makes a FieldRef for a Field or a dense Array: a model lists its fields with one call each.
#include "core/array/expr.hpp"
#include "core/mesh/grid.hpp"
#include "models/model.hpp"

namespace sim {

namespace detail {
/// A FieldRef over anything with context() and view() (a Field's interior, a dense Array).
template <class T, int Rank, class Holder>
FieldRef view_ref(const std::string& name, const std::string& unit, Holder* p, const Extents<Rank>& shape) {
  FieldRef r;
  r.name = name;
  r.unit = unit;
  r.is_double = sizeof(T) == 8;
  for (int d = 0; d < Rank; ++d) r.shape.push_back(shape.n[d]);
  r.to_host = [p](void* host) { copy_to_host<T, Rank>(p->context(), p->view(), static_cast<T*>(host)); };
  r.from_host = [p](const void* host) { copy_from_host<T, Rank>(p->context(), static_cast<const T*>(host), p->view()); };
  r.sum = [p]() { return double(sum(*p)); };
  return r;
}
}  // namespace detail

/// The runner's handle to field f (interior cells), named name with unit.
template <class T, int Rank>
FieldRef field_ref(const std::string& name, const std::string& unit, Field<T, Rank>& f) {
  return detail::view_ref<T, Rank>(name, unit, &f, f.grid().cells);
}

/// The runner's handle to f, this rank's box sub of a field of global shape `global`.
template <class T, int Rank>
FieldRef field_ref(const std::string& name, const std::string& unit, Field<T, Rank>& f, const Subdomain& sub,
                   const Extents<Rank>& global) {
  FieldRef r = detail::view_ref<T, Rank>(name, unit, &f, global);
  if (f.grid().cells.size() != global.size())
    for (int d = 0; d < Rank; ++d) r.offset.push_back(sub.offset[d]), r.count.push_back(f.grid().cells.n[d]);
  return r;
}

/// The runner's handle to a dense array a (a field without ghosts), named name with unit.
template <class T, int Rank>
FieldRef array_ref(const std::string& name, const std::string& unit, Array<T, Rank>& a) {
  return detail::view_ref<T, Rank>(name, unit, &a, a.shape());
}

}  // namespace sim
