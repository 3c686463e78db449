#include "sim/profile/nccl_tests_fit.hpp"

#include <Eigen/Dense>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <set>

#include "sim/core/comment_line.hpp"
#include "sim/core/error.hpp"

namespace trainsim::profile {

namespace {

// Columns of the design matrix: fixed latency, per-step latency, bus bytes.
enum Column { k_fixed = 0, k_step = 1, k_bus = 2 };

// The in-domain per-step latency of `c`: the calibration's in-domain tier where it holds `c`,
// else 0 (the scale-out tier's own latencies then carry the steps inside the domains).
double in_domain_step(const FabricCalibration& calibration, CalibratedCollective c) {
  return calibration[c].fitted() ? calibration[c].step_latency_s : 0.0;
}

struct Sample {
  double steps = 0;
  double bus_bytes = 0;
  double time_s = 0;
  double known_s = 0;  ///< the part of the time the model already holds (in-domain steps)
};

// The tier's terms for `samples` by least squares on the relative error of the time.
FittedCollective fit_samples(CalibratedCollective c, const std::vector<Sample>& samples, const NcclTestsLog& first) {
  std::set<double> step_counts;
  std::set<double> sizes;
  for (const Sample& s : samples) {
    step_counts.insert(s.steps);
    sizes.insert(s.bus_bytes);
  }
  const auto rows = static_cast<Eigen::Index>(samples.size());
  // Each row divided by its measured time: the residuals are relative errors. The columns are
  // scaled to unit maximum so that the solve is well conditioned (microseconds beside GB).
  Eigen::MatrixXd a(rows, 3);
  Eigen::VectorXd rhs(rows);
  for (Eigen::Index i = 0; i < rows; ++i) {
    const Sample& s = samples[static_cast<std::size_t>(i)];
    a(i, k_fixed) = 1.0 / s.time_s;
    a(i, k_step) = s.steps / s.time_s;
    a(i, k_bus) = s.bus_bytes / s.time_s;
    rhs(i) = 1.0 - s.known_s / s.time_s;
  }
  Eigen::Vector3d scale;
  for (Eigen::Index j = 0; j < 3; ++j) {
    scale(j) = a.col(j).cwiseAbs().maxCoeff();
    if (scale(j) > 0) a.col(j) /= scale(j);
  }
  // The terms the rows can tell apart: a latency needs two sizes besides the bandwidth, a
  // per-step latency two step counts (group sizes; domain counts across domains).
  std::vector<std::vector<Column>> subsets{{k_bus}};
  if (samples.size() >= 2 && (sizes.size() >= 2 || step_counts.size() >= 2)) subsets.push_back({k_fixed, k_bus});
  if (step_counts.size() >= 2 && c != CalibratedCollective::send_recv) {
    subsets.push_back({k_step, k_bus});
    if (samples.size() >= 3) subsets.push_back({k_fixed, k_step, k_bus});
  }
  Eigen::Vector3d best = Eigen::Vector3d::Zero();
  double best_residual = std::numeric_limits<double>::infinity();
  for (const std::vector<Column>& cols : subsets) {
    Eigen::MatrixXd sub(rows, static_cast<Eigen::Index>(cols.size()));
    for (std::size_t j = 0; j < cols.size(); ++j) sub.col(static_cast<Eigen::Index>(j)) = a.col(cols[j]);
    const Eigen::VectorXd x = sub.colPivHouseholderQr().solve(rhs);
    if ((x.array() < 0).any() || !x.allFinite()) continue;
    const double residual = (sub * x - rhs).squaredNorm();
    // A larger subset must fit better by more than rounding to be kept.
    if (residual < best_residual * (1 - 1e-9)) {
      best_residual = residual;
      best.setZero();
      for (std::size_t j = 0; j < cols.size(); ++j) best(cols[j]) = x(static_cast<Eigen::Index>(j)) / scale(cols[j]);
    }
  }
  if (!(best(k_bus) > 0))
    throw InputError(first.file, "", "",
                     "its times do not grow with the bytes moved: no bus bandwidth to fit (" +
                         std::string(calibrated_collective_name(c)) + ")");
  FittedCollective f;
  f.fixed_latency_s = best(k_fixed);
  f.step_latency_s = best(k_step);
  f.bus_bandwidth_Bps = 1.0 / best(k_bus);
  return f;
}

FittedCollective fit_in_domain(CalibratedCollective c, const std::vector<const NcclTestsLog*>& logs) {
  std::vector<Sample> samples;
  std::set<int> ranks;
  for (const NcclTestsLog* log : logs) {
    ranks.insert(log->ranks);
    const double factor = nccl_tests_bus_factor(c, log->ranks);
    for (const NcclTestsRow& r : log->rows)
      samples.push_back({calibrated_steps(c, log->ranks), r.bytes * factor, r.time_s, 0});
  }
  FittedCollective f = fit_samples(c, samples, *logs.front());
  f.ranks.assign(ranks.begin(), ranks.end());
  return f;
}

// Across domains, given the in-domain per-step latency: the steps inside the domains are
// known, the fixed latency, the steps between domains and the bandwidth are fitted.
FittedCollective fit_scale_out(CalibratedCollective c, const std::vector<const NcclTestsLog*>& logs,
                               double in_domain_step_s) {
  std::vector<Sample> samples;
  std::set<int> ranks;
  std::set<int> domains;
  for (const NcclTestsLog* log : logs) {
    if (log->ranks_per_domain != logs.front()->ranks_per_domain)
      throw InputError(log->file, "# Rank lines", std::to_string(log->ranks_per_domain) + " ranks per domain",
                       "the logs of one collective across NVLink domains must have as many GPUs in each domain (" +
                           logs.front()->file + " has " + std::to_string(logs.front()->ranks_per_domain) + ")");
    ranks.insert(log->ranks);
    domains.insert(log->domains);
    const double factor = nccl_tests_bus_factor(c, log->ranks);
    const double out = calibrated_scale_out_steps(c, log->domains);
    const double known = in_domain_step_s * (calibrated_steps(c, log->ranks) - out);
    for (const NcclTestsRow& r : log->rows) samples.push_back({out, r.bytes * factor, r.time_s, known});
  }
  FittedCollective f = fit_samples(c, samples, *logs.front());
  f.ranks.assign(ranks.begin(), ranks.end());
  f.domains.assign(domains.begin(), domains.end());
  f.ranks_per_domain = logs.front()->ranks_per_domain;
  return f;
}

// The model's time of the log's row from the calibration's tier for the log.
double model_time_s(const NcclTestsLog& log, const NcclTestsRow& r, const FabricCalibration& calibration) {
  const double factor = nccl_tests_bus_factor(log.collective, log.ranks);
  if (log.domains <= 1) return calibration[log.collective].time_s(r.bytes, log.ranks, factor, log.collective);
  return calibration.at(FabricTier::scale_out, log.collective)
      .scale_out_time_s(r.bytes, log.ranks, log.domains, factor, log.collective,
                        in_domain_step(calibration, log.collective));
}

double row_error(const NcclTestsLog& log, const NcclTestsRow& r, const FabricCalibration& calibration) {
  return r.time_s / model_time_s(log, r, calibration) - 1;  // busbw fitted / measured - 1
}

}  // namespace

FabricCalibration fit_nccl_tests_logs(const std::vector<NcclTestsLog>& logs, const std::string& gpu) {
  FabricCalibration calibration;
  calibration.gpu = gpu;
  // The in-domain tier first: the scale-out one is fitted given it.
  for (const FabricTier tier : {FabricTier::in_domain, FabricTier::scale_out}) {
    for (int i = 0; i < k_calibrated_collectives; ++i) {
      const auto c = static_cast<CalibratedCollective>(i);
      std::vector<const NcclTestsLog*> of_c;
      for (const NcclTestsLog& log : logs)
        if (log.collective == c && (log.domains > 1) == (tier == FabricTier::scale_out)) of_c.push_back(&log);
      if (of_c.empty()) continue;
      calibration.at(tier, c) = tier == FabricTier::in_domain
                                    ? fit_in_domain(c, of_c)
                                    : fit_scale_out(c, of_c, in_domain_step(calibration, c));
    }
  }
  return calibration;
}

std::string nccl_tests_fit_table(const std::vector<NcclTestsLog>& logs, const FabricCalibration& calibration,
                                 double line_rate_Bps) {
  std::string out;
  char buf[400];
  for (const NcclTestsLog& log : logs) {
    const bool across = log.domains > 1;
    const FittedCollective& f = calibration.at(across ? FabricTier::scale_out : FabricTier::in_domain, log.collective);
    std::snprintf(buf, sizeof buf, "# %s: %s on %d GPUs (%zu host%s", comment_line(log.file).c_str(), log.test.c_str(), log.ranks,
                  log.hosts.size(), log.hosts.size() > 1 ? "s" : "");
    out += buf;
    if (across) {
      std::snprintf(buf, sizeof buf,
                    ", %d NVLink domains of %d)\n# fit across domains: bus bandwidth %.2f GB/s, latency %.2f us + "
                    "%.3f us x %.0f steps between domains + %.3f us x %.0f inside them\n",
                    log.domains, log.ranks_per_domain, f.bus_bandwidth_Bps / 1e9, f.fixed_latency_s * 1e6,
                    f.step_latency_s * 1e6, calibrated_scale_out_steps(log.collective, log.domains),
                    in_domain_step(calibration, log.collective) * 1e6,
                    calibrated_steps(log.collective, log.ranks) -
                        calibrated_scale_out_steps(log.collective, log.domains));
    } else {
      std::snprintf(buf, sizeof buf,
                    ")\n# fit: bus bandwidth %.2f GB/s (%.3f of %.0f GB/s NVLink), latency %.2f us + %.3f us x %.0f "
                    "steps\n",
                    f.bus_bandwidth_Bps / 1e9, f.bus_bandwidth_Bps / line_rate_Bps, line_rate_Bps / 1e9,
                    f.fixed_latency_s * 1e6, f.step_latency_s * 1e6, calibrated_steps(log.collective, log.ranks));
    }
    out += buf;
    if (!(f.fixed_latency_s > 0) && !(f.step_latency_s > 0))
      out += "# no latency: one size cannot tell it from the bandwidth (or the rows fit best without one); small "
             "collectives will cost too little: give a sweep (nccl-tests -b 1K -e 8G)\n";
    out += "#        size      time    busbw (GB/s)    error\n";
    out += "#         (B)      (us)  measured  fitted      (%)\n";
    for (const NcclTestsRow& r : log.rows) {
      const double fitted_s = model_time_s(log, r, calibration);
      std::snprintf(buf, sizeof buf, "%14.0f %9.2f %9.2f %7.2f %8.2f\n", r.bytes, r.time_s * 1e6, r.busbw_GBps,
                    r.bytes * nccl_tests_bus_factor(log.collective, log.ranks) / fitted_s / 1e9,
                    (r.time_s / fitted_s - 1) * 100);
      out += buf;
    }
  }
  return out;
}

double nccl_tests_fit_worst_error(const std::vector<NcclTestsLog>& logs, const FabricCalibration& calibration) {
  double worst = 0;
  for (const NcclTestsLog& log : logs)
    for (const NcclTestsRow& r : log.rows)
      worst = std::max(worst, std::abs(row_error(log, r, calibration)));
  return worst;
}

}  // namespace trainsim::profile
