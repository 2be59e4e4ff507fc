#include "models/run/log.hpp"

#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace sim::run {

namespace {
int log_rank = 0;  // this process's rank: only rank 0 logs
}  // namespace

void set_log_rank(int rank) { log_rank = rank; }

void log(const char* fmt, ...) {
  if (log_rank != 0) return;
  va_list ap;
  va_start(ap, fmt);
  std::fputs("simulate: ", stderr);
  std::vfprintf(stderr, fmt, ap);
  std::fputc('\n', stderr);
  va_end(ap);
}

std::string human_time(double s) {
  char b[32];
  if (s < 120) std::snprintf(b, sizeof b, "%.1fs", s);
  else if (s < 7200) std::snprintf(b, sizeof b, "%dm%02ds", int(s) / 60, int(s) % 60);
  else std::snprintf(b, sizeof b, "%dh%02dm", int(s) / 3600, int(s) % 3600 / 60);
  return b;
}

std::string si(double v) {
  char b[32];
  const char* unit[] = {"", "k", "M", "G", "T"};
  int u = 0;
  while (std::fabs(v) >= 1000 && u < 4) v /= 1000, ++u;
  std::snprintf(b, sizeof b, "%.3g%s", v, unit[u]);
  return b;
}

}  // namespace sim::run
