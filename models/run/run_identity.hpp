#pragma once
// Which run an output directory and its checkpoints belong to. A fresh run draws a random
// identity, writes it to DIR/.simulate.run and into every checkpoint (the string "run_id"); a
// resume continues only checkpoints of the directory's run. A fresh run into a directory that
// holds an earlier run's files moves them aside (never deletes them, never continues them).
#include <string>

#include "models/run/plan.hpp"

namespace sim::run {

/// A new random run identity: 16 hex digits.
std::string new_run_id();
/// The identity recorded in DIR/.simulate.run, or "" when there is none (a new directory, or
/// one written by a simkit that had no identities).
std::string read_run_id(const std::string& dir);
/// Records id in DIR/.simulate.run (a temporary, then an atomic rename). Throws Error.
void write_run_id(const std::string& dir, const std::string& id);
/// For a fresh run (rank 0, lock held): moves the files an earlier run left in plan.out_dir
/// under the names this run writes (its checkpoints, snapshots, series, diagnostics and
/// identity) into DIR/previous_run_<id>/; returns that folder, or "" when there was nothing.
/// Throws Error when they cannot be moved.
std::string move_earlier_run_aside(const Plan& plan);

}  // namespace sim::run
