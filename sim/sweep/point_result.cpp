#include "sim/sweep/point_result.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

#include <cstdio>
#include <nlohmann/json.hpp>

#include "sim/core/utf8_text.hpp"
#include "sim/sweep/step_summary.hpp"

namespace trainsim::sweep {

std::string status_name(PointStatus status) {
  switch (status) {
    case PointStatus::ok:
      return "ok";
    case PointStatus::does_not_fit:
      return "does_not_fit";
    case PointStatus::skipped:
      return "skipped";
    case PointStatus::failed:
      return "failed";
    case PointStatus::pending:
      break;
  }
  return "pending";
}

std::vector<std::string> distinct_caveats(const std::vector<PointResult>& results) {
  std::vector<std::string> out;
  for (const PointResult& r : results)
    if (!r.caveats.empty() && std::find(out.begin(), out.end(), r.caveats) == out.end()) out.push_back(r.caveats);
  return out;
}

std::string point_result_json(const PointResult& r) {
  nlohmann::ordered_json j;
  j["index"] = r.index;
  j["fingerprint"] = r.fingerprint;
  j["status"] = status_name(r.status);
  // A reason may quote a path made absolute in a folder whose name is not UTF-8: the dump threw
  // (json type_error 316) in the point's process, so the point failed, and was computed again
  // by every rerun, instead of being skipped with its reason. Written as stderr writes it, \xff.
  j["reason"] = utf8_escaped(r.reason);
  j["trace"] = r.trace;
  nlohmann::ordered_json metrics = nlohmann::ordered_json::object();
  const auto& names = summary_metric_names();
  // JSON has no NaN: a metric the point has not (no run-level simulation) is null.
  for (size_t i = 0; i < r.metrics.size() && i < names.size(); ++i)
    metrics[names[i]] =
        std::isnan(r.metrics[i]) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.metrics[i]);
  j["metrics"] = metrics;
  j["capacity_bytes"] = std::isnan(r.capacity_bytes) ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(r.capacity_bytes);
  j["validation_family"] = r.validation_family;
  j["caveats"] = r.caveats;
  return j.dump(1, ' ', false, nlohmann::ordered_json::error_handler_t::replace) + "\n";
}

std::optional<PointResult> parse_point_result(const std::string& text) {
  try {
    const auto j = nlohmann::json::parse(text);
    PointResult r;
    r.index = j.at("index").get<int>();
    r.fingerprint = j.at("fingerprint").get<std::string>();
    const std::string status = j.at("status").get<std::string>();
    if (status == "ok")
      r.status = PointStatus::ok;
    else if (status == "does_not_fit")
      r.status = PointStatus::does_not_fit;
    else if (status == "skipped")
      r.status = PointStatus::skipped;
    else if (status == "failed")
      r.status = PointStatus::failed;
    else
      return std::nullopt;
    r.reason = j.at("reason").get<std::string>();
    r.trace = j.at("trace").get<std::string>();
    // A file without capacity_bytes is an older build's: redone, so that its fit is known.
    const auto& capacity = j.at("capacity_bytes");
    r.capacity_bytes = capacity.is_null() ? std::numeric_limits<double>::quiet_NaN() : capacity.get<double>();
    if (r.simulated()) {
      for (const std::string& name : summary_metric_names()) {
        const auto& v = j.at("metrics").at(name);
        r.metrics.push_back(v.is_null() ? std::numeric_limits<double>::quiet_NaN() : v.get<double>());
      }
      r.validation_family = j.at("validation_family").get<std::string>();
      r.caveats = j.at("caveats").get<std::string>();
    }
    return r;
  } catch (const nlohmann::json::exception&) {
    return std::nullopt;
  }
}

std::string point_file_path(const std::string& points_dir, int index) {
  char name[32];
  std::snprintf(name, sizeof name, "%06d.json", index);
  return points_dir + "/" + name;
}

}  // namespace trainsim::sweep
