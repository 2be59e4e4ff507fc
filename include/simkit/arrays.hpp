#pragma once
// simkit's array API: contexts, Array/View, for_each, reduce, fused expressions and
// reductions (sum, min, max, count, dot, norm2, norm_max), reductions along an axis and
// statistics (sum(M, axis), amin, amax, mean, var, stddev, argmin, argmax), slices and
// views (slice, row, column, transposed, reshape), creation (ones, arange, linspace, eye),
// transpose, sort / argsort, cumsum, dense linear algebra (matmul, matvec, solve, inv),
// fast transforms (dct/dst/rfft along an axis, 2D spectral multipliers), recorded work
// (CUDA graphs), step inputs and asynchronous reductions, pinned host buffers.
// docs/cupy-users.md maps NumPy/CuPy calls to these.
#include "core/array/array.hpp"
#include "core/runtime/context.hpp"
#include "core/array/creation.hpp"
#include "core/array/expr.hpp"
#include "core/numerics/fft.hpp"
#include "core/kernels/for_each.hpp"
#include "core/runtime/graph.hpp"
#include "core/runtime/host_buffer.hpp"
#include "core/numerics/linalg.hpp"
#include "core/runtime/macros.hpp"
#include "core/kernels/reduce.hpp"
#include "core/kernels/reduce_async.hpp"
#include "core/kernels/reduce_axis.hpp"
#include "core/kernels/scan.hpp"
#include "core/array/slicing.hpp"
#include "core/kernels/sort.hpp"
#include "core/numerics/spectral/multiplier2.hpp"
#include "core/runtime/step_input.hpp"
#include "core/array/transpose.hpp"
