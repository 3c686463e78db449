#include "sim/profile/nccl_tests_log.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"
#include "sim/engine/collective.hpp"

namespace trainsim::profile {

namespace {

// A log of a sweep is a few kB (41 sizes from 1 B to 1 TiB); a job's whole output with NCCL's
// debug lines a few MB.
constexpr std::size_t k_max_log_bytes = std::size_t{16} << 20;

constexpr const char* k_fitted_tests =
    "calibrate fits all_reduce_perf, all_gather_perf, reduce_scatter_perf, alltoall_perf and sendrecv_perf";

std::vector<std::string> tokens(const std::string& line) {
  std::istringstream in(line);
  std::vector<std::string> t;
  for (std::string w; in >> w;) t.push_back(w);
  return t;
}

// A test's name (all_reduce_perf), or its file's name (all_reduce.log), to the collective.
std::optional<CalibratedCollective> collective_in(std::string name) {
  std::erase(name, '_');
  std::ranges::transform(name, name.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  const std::pair<const char*, CalibratedCollective> names[] = {{"allreduce", CalibratedCollective::all_reduce},
                                                                {"allgather", CalibratedCollective::all_gather},
                                                                {"reducescatter", CalibratedCollective::reduce_scatter},
                                                                {"alltoall", CalibratedCollective::all_to_all},
                                                                {"sendrecv", CalibratedCollective::send_recv}};
  for (const auto& [n, c] : names)
    if (name.find(n) != std::string::npos) return c;
  return std::nullopt;
}

double number_field(const std::string& file, const std::string& where, const std::string& column,
                    const std::string& text) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v))
    throw InputError(file, where + " (" + column + ")", text, "expected a number, as nccl-tests prints its table");
  return v;
}

std::string where(int line) { return "line " + std::to_string(line); }

}  // namespace

double nccl_tests_bus_factor(CalibratedCollective c, int ranks) {
  // In CalibratedCollective's order.
  constexpr engine::CollectiveOp k_ops[] = {engine::CollectiveOp::all_reduce, engine::CollectiveOp::all_gather,
                                            engine::CollectiveOp::reduce_scatter, engine::CollectiveOp::all_to_all,
                                            engine::CollectiveOp::send_recv};
  return engine::bus_bandwidth_factor(k_ops[static_cast<std::size_t>(c)], ranks);
}

NcclTestsLog parse_nccl_tests_log(const std::string& text, const std::string& file) {
  NcclTestsLog log;
  log.file = file;
  std::optional<CalibratedCollective> named;
  int named_line = 0;
  std::vector<int> rank_ids;
  std::istringstream in(text);
  std::string line;
  std::string previous_size;  // the last row's size column, as written
  int n = 0;
  while (std::getline(in, line)) {
    ++n;
    const std::vector<std::string> t = tokens(line);
    if (t.empty()) continue;
    if (t.front().front() == '#') {
      std::vector<std::string> h = t;
      h.front().erase(0, 1);
      if (h.front().empty()) h.erase(h.begin());
      if (h.size() >= 4 && h[0] == "Collective" && h[1] == "test" && h[2] == "starting:") {
        if (named)
          throw InputError(file, where(n), h[3],
                           "a second test in one file (the first on line " + std::to_string(named_line) +
                               "): give each test's output as its own file");
        named = collective_in(h[3]);
        if (!named) throw InputError(file, where(n), h[3], k_fitted_tests);
        log.test = h[3];
        named_line = n;
      } else if (h.size() >= 2 && h[0] == "Rank") {
        // #  Rank  0 Group  0 Pid 1234 on HOST device  0 [0x1b] NVIDIA H100 80GB HBM3
        const auto on = std::ranges::find(h, "on");
        if (on == h.end() || on + 1 == h.end())
          throw InputError(file, where(n), line, "a '# Rank' line names its host after 'on', as nccl-tests prints it");
        const int id = static_cast<int>(number_field(file, where(n), "rank", h[1]));
        if (std::ranges::find(rank_ids, id) != rank_ids.end())
          throw InputError(file, where(n) + " (rank)", h[1],
                           "rank listed twice: the log mixes several runs (nccl-tests built without MPI, run under "
                           "mpirun, lists each process as rank 0): give one run's output");
        rank_ids.push_back(id);
        const auto host = std::ranges::find(log.hosts, *(on + 1));
        if (host == log.hosts.end()) {
          log.hosts.push_back(*(on + 1));
          log.ranks_per_host.push_back(1);
        } else {
          ++log.ranks_per_host[static_cast<std::size_t>(host - log.hosts.begin())];
        }
        if (log.device.empty()) {
          const auto bus = std::ranges::find_if(h, [](const std::string& w) { return w.back() == ']'; });
          for (auto w = bus == h.end() ? h.end() : bus + 1; w != h.end(); ++w)
            log.device += (log.device.empty() ? "" : " ") + *w;
        }
      }
      continue;
    }
    if (!std::isdigit(static_cast<unsigned char>(t.front().front()))) continue;  // mpirun's, NCCL's messages
    // size count type redop root time algbw busbw #wrong [time algbw busbw #wrong]
    if (t.size() < 9)
      throw InputError(file, where(n), line,
                       "a result row has size, count, type, redop, root, then time, algbw, busbw and #wrong");
    NcclTestsRow row;
    row.line = n;
    row.bytes = number_field(file, where(n), "size", t[0]);
    row.time_s = number_field(file, where(n), "out-of-place time", t[5]) * 1e-6;
    row.busbw_GBps = number_field(file, where(n), "out-of-place busbw", t[7]);
    if (!(row.bytes > 0)) throw InputError(file, where(n) + " (size)", t[0], "must be > 0 to time a transfer");
    if (!(row.time_s > 0)) throw InputError(file, where(n) + " (out-of-place time)", t[5], "must be > 0");
    // The earlier size as the log has it: a size past long long's range (1e23) was cast to
    // -9223372036854775808 in this message.
    if (!log.rows.empty() && !(row.bytes > log.rows.back().bytes))
      throw InputError(file, where(n) + " (size)", t[0],
                       "sizes must increase (line " + std::to_string(log.rows.back().line) + " has " + previous_size +
                           "): one sweep per file");
    previous_size = t[0];
    log.rows.push_back(row);
  }
  if (!named) {
    named = collective_in(std::filesystem::path(file).filename().string());
    if (!named)
      throw InputError(file, "", "",
                       "names no collective: no '# Collective test starting:' line (nccl-tests 2.14+) and the file's "
                       "name holds none of all_reduce, all_gather, reduce_scatter, alltoall, sendrecv");
    log.test = std::string(calibrated_collective_name(*named)) + "_perf";
  }
  log.collective = *named;
  log.ranks = static_cast<int>(rank_ids.size());
  if (log.ranks < 2)
    throw InputError(file, "", "",
                     "lists " + std::to_string(log.ranks) +
                         " '# Rank' line(s): a collective needs 2 ranks or more, each listed as nccl-tests lists them "
                         "under '# Using devices'");
  if (log.rows.empty()) throw InputError(file, "", "", "has no result rows (size count type redop root time ...)");
  // busbw = size / time x the bus factor on the log's ranks: a row that disagrees is of
  // another collective or group size than the header says. Printed to 2 decimals: 1 % and
  // 0.02 GB/s of slack; rows under 0.5 GB/s are rounding, when both the measured and the
  // expected figure are (a time of 1e308 us beside 586 GB/s passed, and the fit took it).
  const double factor = nccl_tests_bus_factor(log.collective, log.ranks);
  for (const NcclTestsRow& r : log.rows) {
    const double expected = r.bytes / r.time_s / 1e9 * factor;
    if (expected < 0.5 && r.busbw_GBps < 0.5) continue;
    if (std::abs(r.busbw_GBps - expected) > 0.01 * expected + 0.02) {
      char value[64];
      std::snprintf(value, sizeof value, "%.2f", r.busbw_GBps);
      char rule[200];
      std::snprintf(rule, sizeof rule,
                    "is not size / time x %.4f = %.2f GB/s, %s's bus factor on %d ranks: a log of another "
                    "collective or group size",
                    factor, expected, log.test.c_str(), log.ranks);
      throw InputError(file, where(r.line) + " (out-of-place busbw)", value, rule);
    }
  }
  return log;
}

void place_in_domains(NcclTestsLog& log, int nodes_per_domain, int gpus_per_node) {
  std::vector<int> per_domain;
  for (std::size_t h = 0; h < log.hosts.size(); ++h) {
    if (log.ranks_per_host[h] > gpus_per_node)
      throw InputError(log.file, "# Rank lines", log.hosts[h] + ": " + std::to_string(log.ranks_per_host[h]) + " ranks",
                       "more ranks on one host than the cluster's nodes have GPUs (" + std::to_string(gpus_per_node) +
                           "): a log of another cluster");
    if (h % static_cast<std::size_t>(nodes_per_domain) == 0) per_domain.push_back(0);
    per_domain.back() += log.ranks_per_host[h];
  }
  for (std::size_t d = 1; d < per_domain.size(); ++d)
    if (per_domain[d] != per_domain.front())
      throw InputError(log.file, "# Rank lines",
                       "domain " + std::to_string(d + 1) + ": " + std::to_string(per_domain[d]) + " ranks",
                       "the NVLink domains (" + std::to_string(nodes_per_domain) +
                           " host(s) each, in the order of their first rank) hold unequal numbers of ranks (" +
                           std::to_string(per_domain.front()) + " in the first): calibrate fits even groups");
  log.domains = static_cast<int>(per_domain.size());
  log.ranks_per_domain = per_domain.empty() ? 0 : per_domain.front();
}

NcclTestsLog read_nccl_tests_log(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) throw InputError(path, "", "", "is a directory, not an nccl-tests log");
  return parse_nccl_tests_log(
      read_input_file(path, {"the nccl-tests log", "cannot open the nccl-tests log", k_max_log_bytes}), path);
}

}  // namespace trainsim::profile
