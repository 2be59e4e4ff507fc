#pragma once
// The whole public API of simkit.
#include "arrays.hpp"
#include "blas.hpp"
#include "grid.hpp"
#include "model.hpp"
#include "random.hpp"
#include "solvers.hpp"
