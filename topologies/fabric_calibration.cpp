#include "topologies/fabric_calibration.hpp"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <sstream>

#include "sim/core/comment_line.hpp"
#include "sim/core/error.hpp"
#include "sim/core/input_file.hpp"

namespace trainsim {

namespace {

constexpr std::array<std::string_view, k_calibrated_collectives> k_names{"all_reduce", "all_gather", "reduce_scatter",
                                                                         "alltoall", "sendrecv"};
constexpr std::size_t k_max_file_bytes = std::size_t{1} << 20;
// A scale-out section is named [scale_out.all_reduce] ...
constexpr std::string_view k_scale_out_prefix = "scale_out.";

std::string number(double v) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.9g", v);
  return buf;
}

std::string trimmed(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r");
  if (first == std::string_view::npos) return "";
  const auto last = s.find_last_not_of(" \t\r");
  return std::string(s.substr(first, last - first + 1));
}

double positive_number(const std::string& file, const std::string& key, const std::string& text, bool zero_allowed) {
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v) || v < 0 ||
      (!zero_allowed && v == 0))
    throw InputError(file, key, text, zero_allowed ? "expected a number >= 0" : "expected a number > 0");
  return v;
}

std::vector<int> rank_list(const std::string& file, const std::string& key, const std::string& text, int least = 2) {
  std::vector<int> ranks;
  std::istringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const std::string t = trimmed(item);
    int n = 0;
    const auto [end, ec] = std::from_chars(t.data(), t.data() + t.size(), n);
    if (t.empty() || ec != std::errc() || end != t.data() + t.size() || n < least)
      throw InputError(file, key, text, "expected whole numbers >= " + std::to_string(least) + ", comma-separated");
    ranks.push_back(n);
  }
  return ranks;
}

std::string int_list(const std::vector<int>& values) {
  std::string out;
  for (const int n : values) out += (out.empty() ? "" : ", ") + std::to_string(n);
  return out;
}

}  // namespace

std::string_view calibrated_collective_name(CalibratedCollective c) { return k_names[static_cast<size_t>(c)]; }

std::optional<CalibratedCollective> parse_calibrated_collective(std::string_view name) {
  for (std::size_t i = 0; i < k_names.size(); ++i)
    if (k_names[i] == name) return static_cast<CalibratedCollective>(i);
  return std::nullopt;
}

double calibrated_steps(CalibratedCollective c, int ranks) {
  if (c == CalibratedCollective::send_recv) return 0;
  return (c == CalibratedCollective::all_reduce ? 2.0 : 1.0) * (ranks - 1);
}

double calibrated_scale_out_steps(CalibratedCollective c, int domains) {
  if (c == CalibratedCollective::send_recv) return 0;
  return (c == CalibratedCollective::all_reduce ? 2.0 : 1.0) * (domains - 1);
}

double FittedCollective::time_s(double bytes, int group, double bus_factor, CalibratedCollective c) const {
  return fixed_latency_s + step_latency_s * calibrated_steps(c, group) + bytes * bus_factor / bus_bandwidth_Bps;
}

double FittedCollective::scale_out_time_s(double bytes, int group, int domain_count, double bus_factor,
                                          CalibratedCollective c, double in_domain_step_s) const {
  const double out = calibrated_scale_out_steps(c, domain_count);
  return fixed_latency_s + step_latency_s * out + in_domain_step_s * (calibrated_steps(c, group) - out) +
         bytes * bus_factor / bus_bandwidth_Bps;
}

std::string fabric_calibration_text(const FabricCalibration& calibration, const std::vector<std::string>& comments) {
  std::string out;
  for (const std::string& c : comments) out += "# " + comment_line(c) + "\n";
  out += "gpu = " + calibration.gpu + "\n";
  for (const FabricTier tier : {FabricTier::in_domain, FabricTier::scale_out}) {
    for (std::size_t i = 0; i < k_names.size(); ++i) {
      const FittedCollective& f = calibration.at(tier, static_cast<CalibratedCollective>(i));
      if (!f.fitted()) continue;
      out += "\n[" + std::string(tier == FabricTier::scale_out ? k_scale_out_prefix : "") + std::string(k_names[i]) +
             "]\n";
      out += "bus_bandwidth_GBps = " + number(f.bus_bandwidth_Bps / 1e9) + "\n";
      out += "fixed_latency_us = " + number(f.fixed_latency_s * 1e6) + "\n";
      out += "step_latency_us = " + number(f.step_latency_s * 1e6) + "\n";
      if (!f.ranks.empty()) out += "ranks = " + int_list(f.ranks) + "\n";
      if (tier == FabricTier::scale_out) {
        out += "ranks_per_domain = " + std::to_string(f.ranks_per_domain) + "\n";
        if (!f.domains.empty()) out += "domains = " + int_list(f.domains) + "\n";
      }
    }
  }
  return out;
}

FabricCalibration parse_fabric_calibration(std::istream& in, const std::string& file) {
  FabricCalibration c;
  c.file = file;
  std::string line;
  int number_of_line = 0;
  FittedCollective* section = nullptr;
  bool scale_out = false;
  std::string section_name;
  std::array<bool, 2 * k_calibrated_collectives> seen{};
  while (std::getline(in, line)) {
    ++number_of_line;
    const std::string where = "line " + std::to_string(number_of_line);
    std::string text = line.substr(0, line.find('#'));
    text = trimmed(text);
    if (text.empty()) continue;
    if (text.front() == '[') {
      if (text.back() != ']') throw InputError(file, where, text, "a section is written [name]");
      section_name = trimmed(std::string_view(text).substr(1, text.size() - 2));
      scale_out = section_name.starts_with(k_scale_out_prefix);
      const auto which =
          parse_calibrated_collective(std::string_view(section_name).substr(scale_out ? k_scale_out_prefix.size() : 0));
      if (!which)
        throw InputError(file, where, text,
                         "expected a section [all_reduce], [all_gather], [reduce_scatter], [alltoall] or [sendrecv], "
                         "or one of them across NVLink domains ([scale_out.all_reduce] ...)");
      const std::size_t slot = static_cast<size_t>(*which) + (scale_out ? k_calibrated_collectives : 0);
      if (seen[slot]) throw InputError(file, where, text, "the section appears twice");
      seen[slot] = true;
      section = &c.at(scale_out ? FabricTier::scale_out : FabricTier::in_domain, *which);
      section->bus_bandwidth_Bps = -1;  // must be given below
      continue;
    }
    const auto eq = text.find('=');
    if (eq == std::string::npos) throw InputError(file, where, text, "expected key = value");
    const std::string key = trimmed(std::string_view(text).substr(0, eq));
    const std::string value = trimmed(std::string_view(text).substr(eq + 1));
    const std::string shown_key = where + ", " + (section ? section_name + "." : std::string()) + key;
    if (section == nullptr) {
      if (key != "gpu") throw InputError(file, shown_key, value, "expected gpu = NAME before the first section");
      if (value.empty()) throw InputError(file, shown_key, value, "needs the GPU preset's name");
      c.gpu = value;
    } else if (key == "bus_bandwidth_GBps") {
      section->bus_bandwidth_Bps = positive_number(file, shown_key, value, false) * 1e9;
    } else if (key == "fixed_latency_us") {
      section->fixed_latency_s = positive_number(file, shown_key, value, true) * 1e-6;
    } else if (key == "step_latency_us") {
      section->step_latency_s = positive_number(file, shown_key, value, true) * 1e-6;
      if ((section == &c[CalibratedCollective::send_recv] ||
           section == &c.at(FabricTier::scale_out, CalibratedCollective::send_recv)) &&
          section->step_latency_s > 0)
        throw InputError(file, shown_key, value, "a send/receive makes no ring steps: 0 or none");
    } else if (key == "ranks") {
      section->ranks = rank_list(file, shown_key, value);
    } else if (scale_out && key == "ranks_per_domain") {
      const std::vector<int> g = rank_list(file, shown_key, value, 1);
      if (g.size() != 1) throw InputError(file, shown_key, value, "expected one whole number >= 1");
      section->ranks_per_domain = g.front();
    } else if (scale_out && key == "domains") {
      section->domains = rank_list(file, shown_key, value);
    } else {
      throw InputError(file, shown_key, value,
                       scale_out ? "unknown key: expected bus_bandwidth_GBps, fixed_latency_us, step_latency_us, "
                                   "ranks, ranks_per_domain or domains"
                                 : "unknown key: expected bus_bandwidth_GBps, fixed_latency_us, step_latency_us or ranks");
    }
  }
  if (c.gpu.empty()) throw InputError(file, "gpu", "", "missing: the GPU preset the logs were measured on");
  bool any = false;
  for (std::size_t i = 0; i < k_names.size(); ++i) {
    const std::string out_name = std::string(k_scale_out_prefix) + std::string(k_names[i]);
    if (c.collectives[i].bus_bandwidth_Bps < 0)
      throw InputError(file, std::string(k_names[i]) + ".bus_bandwidth_GBps", "", "missing");
    if (c.scale_out[i].bus_bandwidth_Bps < 0) throw InputError(file, out_name + ".bus_bandwidth_GBps", "", "missing");
    if (c.scale_out[i].fitted() && c.scale_out[i].ranks_per_domain == 0)
      throw InputError(file, out_name + ".ranks_per_domain", "",
                       "missing: the GPUs per NVLink domain of the groups measured (their NICs set the bandwidth)");
    any = any || c.collectives[i].fitted() || c.scale_out[i].fitted();
  }
  if (!any) throw InputError(file, "", "", "no collective: a fabric calibration holds at least one [collective] section");
  return c;
}

FabricCalibration read_fabric_calibration(const std::string& path) {
  std::istringstream text(read_input_file(
      path, {"the fabric calibration file", "cannot open the fabric calibration file", k_max_file_bytes}));
  return parse_fabric_calibration(text, path);
}

}  // namespace trainsim
