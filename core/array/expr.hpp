#pragma once
// Fused elementwise expressions. `c = a * 5 + sin(b)` builds a small tree of view-holding
// nodes and evaluates it in one kernel: one read of a and b, one write of c, no
// temporaries. Scalars take the element type of the array they meet (x * 5 stays float for
// a float array). Reductions (sum, min, max, count, dot, norm2, norm_max) take expressions
// too, so sqrt(sum(x * x)) is one pass.
// The parts live in core/array/expr/; this header includes them all.
#include "core/array/expr/nodes.hpp"
#include "core/array/expr/ops.hpp"
#include "core/array/expr/operators.hpp"
#include "core/array/expr/evaluate.hpp"
#include "core/array/expr/reductions.hpp"


// Reductions along an axis (sum(M, 0) is the column sums), mean/var/std, argmin/argmax.
#include "core/kernels/reduce_axis.hpp"
