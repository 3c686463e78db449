#include <charconv>
#include <cmath>

#include "sim/sweep/result_columns.hpp"
#include "sim/sweep/results_table.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {

namespace {

std::string field(const std::string& s) {
  if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
  std::string q = "\"";
  for (const char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string number(double v) {
  if (std::isnan(v)) return "";  // not simulated: an empty cell
  char buf[64];
  const auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  return ec == std::errc() ? std::string(buf, end) : std::string();
}

}  // namespace

std::string results_csv(const SweepPlan& plan, const std::vector<PointResult>& results) {
  const auto& metrics = summary_metric_names();
  std::string out = "point";
  for (const std::string& p : plan.parameter_names) out += "," + field(p);
  out += ",status,reason";
  for (const ResultColumn& c : result_columns()) out += "," + c.name;
  for (const std::string& m : metrics) out += "," + m;
  out += ",trace,validation_family,caveats\n";
  for (size_t i = 0; i < plan.points.size(); ++i) {
    const SweepPoint& pt = plan.points[i];
    const PointResult& r = results[i];
    out += std::to_string(pt.index);
    for (const std::string& v : pt.values) out += "," + field(v);
    out += "," + status_name(r.status) + "," + field(r.reason);
    for (const ResultColumn& c : result_columns()) out += "," + (c.text ? field(c.text(r)) : number(c.number(r)));
    for (size_t m = 0; m < metrics.size(); ++m) out += "," + (m < r.metrics.size() ? number(r.metrics[m]) : "");
    out += "," + field(r.trace) + "," + field(r.validation_family) + "," + field(r.caveats) + "\n";
  }
  return out;
}

}  // namespace trainsim::sweep
