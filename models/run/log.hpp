#pragma once
// The run's messages on stderr ("simulate: ..."), printed by rank 0 only, and the short
// human forms of durations and rates that the progress line and the summary use.
#include <string>

namespace sim::run {

/// Makes log() print only when rank is 0 (call once, with this process's rank).
void set_log_rank(int rank);
/// Prints "simulate: " + the formatted message + newline to stderr, on rank 0 only.
void log(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// A duration as "12.3s", "4m05s" or "2h03m".
std::string human_time(double seconds);
/// A number with an SI prefix and 3 significant digits: "1.23M".
std::string si(double v);

}  // namespace sim::run
