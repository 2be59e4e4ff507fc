#pragma once
// simkit's array API: contexts, Array/View, for_each, reduce, fused expressions and
// reductions (sum, min, max, count, dot, norm2, norm_max), reductions along an axis and
// statistics (sum(M, axis), amin, amax, mean, var, stddev, argmin, argmax), slices and
// views (slice, row, column, transposed, reshape), creation (ones, arange, linspace, eye),
// transpose, sort / argsort, cumsum, dense linear algebra (matmul, matvec, solve, inv),
// fast transforms (dct/dst/rfft along an axis, 2D spectral multipliers), recorded work
// (CUDA graphs), step inputs and asynchronous reductions, pinned host buffers.
// docs/cupy-users.md maps NumPy/CuPy calls to these.
#include "core/array.hpp"
#include "core/context.hpp"
#include "core/creation.hpp"
#include "core/expr.hpp"
#include "core/fft.hpp"
#include "core/for_each.hpp"
#include "core/graph.hpp"
#include "core/host_buffer.hpp"
#include "core/linalg.hpp"
#include "core/macros.hpp"
#include "core/reduce.hpp"
#include "core/reduce_async.hpp"
#include "core/reduce_axis.hpp"
#include "core/scan.hpp"
#include "core/slicing.hpp"
#include "core/sort.hpp"
#include "core/spectral.hpp"
#include "core/step_input.hpp"
#include "core/transpose.hpp"
