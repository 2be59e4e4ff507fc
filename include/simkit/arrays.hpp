#pragma once
// simkit's array API: contexts, Array/View, for_each, reduce, fused expressions and
// reductions (sum, min, max, count, dot, norm2, norm_max), pinned host buffers.
#include "core/array.hpp"
#include "core/context.hpp"
#include "core/expr.hpp"
#include "core/for_each.hpp"
#include "core/host_buffer.hpp"
#include "core/macros.hpp"
#include "core/reduce.hpp"
