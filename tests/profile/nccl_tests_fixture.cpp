#include "profile/nccl_tests_fixture.hpp"

#include <cstdio>

#include "sim/profile/nccl_tests_log.hpp"

namespace trainsim::testing {

std::string nccl_tests_log_text(const NcclTestsLogSpec& spec) {
  std::string out = "# nccl-tests version 2.17.6 nccl-headers=22703 nccl-library=22703\n";
  if (spec.test_line) out += "# Collective test starting: " + spec.test + "\n";
  out += "# nThread 1 nGpus 1 minBytes 8 maxBytes 8589934592 step: 2(factor) warmup iters: 5 iters: 20 agg iters: 1 "
         "validation: 1 graph: 0\n#\n# Using devices\n";
  char buf[300];
  for (int r = 0; r < spec.ranks; ++r) {
    std::snprintf(buf, sizeof buf, "#  Rank %2d Group  0 Pid %6d on     node-%02d device %2d [0000:%02x:00] %s\n", r,
                  4000 + r, r / spec.ranks_per_host, r % spec.ranks_per_host, 16 + r % spec.ranks_per_host,
                  spec.device.c_str());
    out += buf;
  }
  out += "NCCL version 2.27.3+cuda12.9\n#\n";
  out += "#                                                              out-of-place                       in-place\n";
  out += "#       size         count      type   redop    root     time   algbw   busbw #wrong     time   algbw   busbw "
         "#wrong\n";
  out += "#        (B)    (elements)                               (us)  (GB/s)  (GB/s)            (us)  (GB/s)  (GB/s)\n";
  const std::string name = spec.test.substr(0, spec.test.rfind("_perf"));
  const auto collective = parse_calibrated_collective(name).value_or(CalibratedCollective::all_reduce);
  const double factor = profile::nccl_tests_bus_factor(collective, spec.ranks);
  const bool reduces =
      collective == CalibratedCollective::all_reduce || collective == CalibratedCollective::reduce_scatter;
  const bool per_rank = collective != CalibratedCollective::all_reduce && collective != CalibratedCollective::send_recv;
  for (std::size_t i = 0; i < spec.bytes.size(); ++i) {
    const double b = spec.bytes[i];
    const double t = spec.time_us[i];
    const double algbw = b / (t * 1e-6) / 1e9;
    std::snprintf(buf, sizeof buf, "%12.0f  %12.0f     float %7s      -1  %7.2f %7.2f %7.2f      0  %7.2f %7.2f %7.2f      0\n",
                  b, per_rank ? b / 4 / spec.ranks : b / 4, reduces ? "sum" : "none", t, algbw, algbw * factor, t,
                  algbw, algbw * factor);
    out += buf;
  }
  out += "# Out of bounds values : 0 OK\n# Avg bus bandwidth    : 100.0\n#\n";
  if (spec.test_line) out += "# Collective test concluded: " + spec.test + "\n";
  return out;
}

std::vector<double> doubling_sizes(double min_bytes, double max_bytes) {
  std::vector<double> v;
  for (double b = min_bytes; b <= max_bytes; b *= 2) v.push_back(b);
  return v;
}

std::vector<double> model_times_us(const FittedCollective& fitted, CalibratedCollective c, int ranks,
                                   const std::vector<double>& bytes) {
  std::vector<double> t;
  for (const double b : bytes) t.push_back(fitted.time_s(b, ranks, profile::nccl_tests_bus_factor(c, ranks), c) * 1e6);
  return t;
}

}  // namespace trainsim::testing
