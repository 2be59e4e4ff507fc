#pragma once
// Time integrators (Euler, RK2) and conjugate gradients, written against the array API.
#include "solvers/cg.hpp"
#include "solvers/time_integrators.hpp"
