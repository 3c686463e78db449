#include "sim/scenario/gpu_preset_fields.hpp"

#include <algorithm>
#include <array>
#include <string_view>
#include <utility>

#include "sim/core/units.hpp"
#include "sim/scenario/field_kinds.hpp"

namespace trainsim {

namespace {

using Rule = std::optional<std::string>;
using field_kinds::int_field;
using field_kinds::number_text;

// "989TFLOP/s" -> 989 x 1e12. A multiplication, as the datasheet figures were written in C++
// before they were data (2.25 x 1e15), so that the files reproduce those doubles bit for bit.
std::optional<double> parse_flops(std::string_view text) {
  constexpr std::array<std::pair<std::string_view, double>, 4> k_units{
      {{"FLOP/s", 1.0}, {"GFLOP/s", 1e9}, {"TFLOP/s", 1e12}, {"PFLOP/s", 1e15}}};
  if (text == "0") return 0.0;
  for (const auto& [unit, factor] : k_units) {
    if (text.size() <= unit.size() || text.substr(text.size() - unit.size()) != unit) continue;
    const auto v = parse::number(parse::trimmed(text.substr(0, text.size() - unit.size())));
    if (v && *v >= 0) return *v * factor;
  }
  return std::nullopt;
}

// "700W", "1.2kW".
std::optional<double> parse_watts(std::string_view text) {
  for (const auto& [unit, factor] : std::array<std::pair<std::string_view, double>, 2>{{{"kW", 1e3}, {"W", 1.0}}}) {
    if (text.size() <= unit.size() || text.substr(text.size() - unit.size()) != unit) continue;
    const auto v = parse::number(parse::trimmed(text.substr(0, text.size() - unit.size())));
    if (v && *v >= 0) return *v * factor;
  }
  return std::nullopt;
}

// A figure with a unit, > 0 unless `allow_zero`, shown in `show_unit` (dividing by `factor`):
// field_kinds::quantity_field in the order these fields read best.
template <typename Access>
ScenarioField unit_field(std::string name, std::string help, Access access,
                         std::optional<double> (*parser)(std::string_view), const char* units, bool allow_zero,
                         const char* show_unit, double factor) {
  return field_kinds::quantity_field(std::move(name), std::move(help), access, parser, units, show_unit, factor,
                                     allow_zero);
}

template <typename Access>
ScenarioField flops_field(std::string name, std::string help, Access access, bool allow_zero) {
  return unit_field(std::move(name), std::move(help), access, parse_flops, "FLOP/s, GFLOP/s, TFLOP/s, PFLOP/s",
                    allow_zero, "TFLOP/s", 1e12);
}

// idle_power, comm_power: watts, or a share of the TDP ("15%": 0.15 x tdp).
template <typename Access>
ScenarioField power_share_field(std::string name, std::string help, Access access) {
  ScenarioField f = unit_field(std::move(name), std::move(help), access, parse_watts, "W, kW", true, "W", 1.0);
  f.apply = [access, watts = f.apply](Scenario& s, std::string_view text) -> Rule {
    if (text.empty() || text.back() != '%') return watts(s, text);
    const auto share = parse::fraction(text);
    if (!share || *share < 0 || *share > 1) return "expected watts (W, kW) or a share of the TDP from 0% to 100%";
    access(s) = *share * s.cluster.gpu.tdp_w;
    return std::nullopt;
  };
  return f;
}

ScenarioField kernel_table_field() {
  ScenarioField f;
  f.name = "gpu.kernel_table";
  f.help =
      "the shipped GPU type whose kernel table (kernels/calibration/NAME.csv) times this one's compute; default: its "
      "own";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    if (text.empty() || text.find_first_of("/\\ ") != std::string_view::npos) return "expected a GPU type's name";
    s.cluster.gpu.calibration_gpu = std::string(text);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.gpu.table_gpu(); };
  return f;
}

// The architecture's name, part of a validation family's id (sim/scenario/accuracy_caveats.cpp).
ScenarioField architecture_field() {
  ScenarioField f;
  f.name = "gpu.architecture";
  f.help = "NVIDIA's architecture name (ampere, hopper, blackwell): with the cluster's host, the validation family";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const bool named = !text.empty() && std::all_of(text.begin(), text.end(), [](char c) {
      return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-';
    });
    if (!named) return "expected a lowercase name (ampere, hopper, blackwell)";
    s.cluster.gpu.architecture = std::string(text);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return s.cluster.gpu.architecture; };
  return f;
}

// The generations whose NVLink collectives are measured (topologies/protocol_efficiency.cpp).
ScenarioField nvlink_generation_field() {
  ScenarioField f;
  f.name = "gpu.nvlink_generation";
  f.help = "NVLink generation (3, 4, 5), which picks the measured NVLink collective rates; 0: none, line rate";
  f.apply = [](Scenario& s, std::string_view text) -> Rule {
    const auto v = parse::integer(text);
    if (!v || !(*v == 0 || (*v >= 3 && *v <= 5)))
      return "expected 3, 4 or 5 (the NVLink generations with measured collectives) or 0 (none)";
    s.cluster.gpu.nvlink_generation = static_cast<int>(*v);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) { return std::to_string(s.cluster.gpu.nvlink_generation); };
  return f;
}

ScenarioField tp_overlap_field() {
  return field_kinds::fraction_field(
      "gpu.tp_overlap_slowdown", "GEMM slowdown beside overlapped tensor-parallel communication, a fraction",
      [](auto& s) -> auto& { return s.cluster.gpu.tp_overlap_slowdown; }, {true, "0.4 or 40%", false});
}

}  // namespace

std::vector<ScenarioField> gpu_preset_fields() {
  ScenarioField tdp = unit_field(
      "gpu.tdp", "power while computing", [](auto& s) -> auto& { return s.cluster.gpu.tdp_w; }, parse_watts, "W, kW",
      false, "W", 1.0);
  tdp.priority = 1;
  return {
      unit_field(
          "gpu.memory", "HBM capacity visible to CUDA (nvidia-smi memory.total)",
          [](auto& s) -> auto& { return s.cluster.gpu.memory_bytes; }, units::parse_bytes, units::k_bytes_units, false,
          "MiB", 1024.0 * 1024.0),
      flops_field(
          "gpu.peak_bf16", "dense BF16 tensor-core peak",
          [](auto& s) -> auto& { return s.cluster.gpu.peak_bf16_flops; }, false),
      flops_field(
          "gpu.peak_fp8", "dense FP8 peak; 0: no FP8 tensor cores",
          [](auto& s) -> auto& { return s.cluster.gpu.peak_fp8_flops; }, true),
      flops_field(
          "gpu.peak_tf32", "dense TF32 peak (fp32 training)",
          [](auto& s) -> auto& { return s.cluster.gpu.peak_tf32_flops; }, true),
      flops_field(
          "gpu.peak_mxfp8", "dense MXFP8 peak; 0: no MX tensor cores",
          [](auto& s) -> auto& { return s.cluster.gpu.peak_mxfp8_flops; }, true),
      flops_field(
          "gpu.peak_nvfp4", "dense NVFP4 peak; 0: none",
          [](auto& s) -> auto& { return s.cluster.gpu.peak_nvfp4_flops; }, true),
      unit_field(
          "gpu.hbm_bandwidth", "HBM bandwidth", [](auto& s) -> auto& { return s.cluster.gpu.hbm_bandwidth_Bps; },
          units::parse_bandwidth, units::k_bandwidth_units, false, "GB/s", 1e9),
      unit_field(
          "gpu.nvlink_bandwidth", "NVLink per GPU per direction, all links",
          [](auto& s) -> auto& { return s.cluster.gpu.nvlink_bandwidth_Bps; }, units::parse_bandwidth,
          units::k_bandwidth_units, false, "GB/s", 1e9),
      int_field(
          "gpu.sms", "streaming multiprocessors (0: unstated)", [](auto& s) -> auto& { return s.cluster.gpu.sms; }, 0),
      tp_overlap_field(),
      tdp,
      power_share_field(
          "gpu.idle_power", "power while waiting: watts or a share of the TDP",
          [](auto& s) -> auto& { return s.cluster.gpu.idle_power_w; }),
      power_share_field(
          "gpu.comm_power", "power while only communicating: watts or a share of the TDP",
          [](auto& s) -> auto& { return s.cluster.gpu.comm_power_w; }),
      kernel_table_field(),
      architecture_field(),
      nvlink_generation_field(),
  };
}

std::vector<std::string> required_gpu_preset_keys() {
  return {"gpu.memory", "gpu.peak_bf16",  "gpu.peak_tf32",  "gpu.hbm_bandwidth", "gpu.nvlink_bandwidth",
          "gpu.tdp",    "gpu.idle_power", "gpu.comm_power", "gpu.architecture"};
}

}  // namespace trainsim
