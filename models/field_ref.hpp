#pragma once
// Makes a FieldRef for a Field: a model lists its fields with one call each.
#include "core/expr.hpp"
#include "core/grid.hpp"
#include "models/model.hpp"

namespace sim {

/// The runner's handle to field f (interior cells), named name with unit.
template <class T, int Rank>
FieldRef field_ref(const std::string& name, const std::string& unit, Field<T, Rank>& f) {
  FieldRef r;
  r.name = name;
  r.unit = unit;
  r.is_double = sizeof(T) == 8;
  for (int d = 0; d < Rank; ++d) r.shape.push_back(f.grid().cells.n[d]);
  Field<T, Rank>* p = &f;
  r.to_host = [p](void* host) { detail::copy_to_host<T, Rank>(p->context(), p->view(), static_cast<T*>(host)); };
  r.from_host = [p](const void* host) {
    detail::copy_from_host<T, Rank>(p->context(), static_cast<const T*>(host), p->view());
  };
  r.sum = [p]() { return double(sum(*p)); };
  return r;
}

/// The runner's handle to a dense array a (a field without ghosts), named name with unit.
template <class T, int Rank>
FieldRef array_ref(const std::string& name, const std::string& unit, Array<T, Rank>& a) {
  FieldRef r;
  r.name = name;
  r.unit = unit;
  r.is_double = sizeof(T) == 8;
  for (int d = 0; d < Rank; ++d) r.shape.push_back(a.extent(d));
  Array<T, Rank>* p = &a;
  r.to_host = [p](void* host) { detail::copy_to_host<T, Rank>(p->context(), p->view(), static_cast<T*>(host)); };
  r.from_host = [p](const void* host) {
    detail::copy_from_host<T, Rank>(p->context(), static_cast<const T*>(host), p->view());
  };
  r.sum = [p]() { return double(sum(*p)); };
  return r;
}

}  // namespace sim
