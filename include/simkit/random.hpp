#pragma once
// Random fills from the context's Philox4x32-10 stream (same bits on GPU and CPU), and random
// fields keyed by the global cell index (same bits on any split over ranks).
#include "core/numerics/random.hpp"
#include "core/numerics/random_field.hpp"
