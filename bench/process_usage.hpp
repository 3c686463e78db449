#pragma once
// What a benchmark reports about its own process.

#include <sys/resource.h>

namespace trainsim::bench {

/// Peak resident memory of this process so far, bytes.
inline double peak_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;  // Linux reports kilobytes
}

/// Peak resident memory of the largest child process waited for so far, bytes.
inline double peak_children_rss_bytes() {
  rusage u{};
  getrusage(RUSAGE_CHILDREN, &u);
  return static_cast<double>(u.ru_maxrss) * 1024.0;
}

}  // namespace trainsim::bench
