#pragma once
// Random fills from the context's Philox4x32-10 stream (same bits on GPU and CPU).
#include "core/numerics/random.hpp"
