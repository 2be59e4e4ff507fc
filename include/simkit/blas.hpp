#pragma once
// BLAS level 1 (axpy, scal, dot, nrm2): cuBLAS on the GPU, OpenMP on the CPU.
#include "core/numerics/blas.hpp"
