#pragma once
// Random fills from the context's Philox4x32-10 stream (same bits on GPU and CPU), and
// fused Monte Carlo counting.
#include "core/montecarlo.hpp"
#include "core/random.hpp"
