#include "sim/compute/layer_check.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <map>
#include <sstream>

#include "sim/core/error.hpp"

namespace trainsim {

namespace {

constexpr const char* k_layer_prefix = "layer.";

// "h=8192,heads=64,..." -> the shape; every key once, each a positive integer.
MeasuredLayerShape parse_shape(const std::string& file, const std::string& spec) {
  const std::string rule =
      "must be h=,heads=,kv_heads=,ffn=,seq=,mb= with positive integers (trainsim-calibrate --layer writes it)";
  std::map<std::string, int> values;
  std::istringstream in(spec);
  std::string item;
  while (std::getline(in, item, ',')) {
    const auto eq = item.find('=');
    int value = 0;
    const char* first = eq == std::string::npos ? nullptr : item.data() + eq + 1;
    const char* last = item.data() + item.size();
    if (first == nullptr || std::from_chars(first, last, value).ptr != last || value <= 0 ||
        !values.emplace(item.substr(0, eq), value).second)
      throw InputError(file, "# layer", spec, rule);
  }
  const std::array<const char*, 6> keys{"h", "heads", "kv_heads", "ffn", "seq", "mb"};
  for (const char* key : keys)
    if (!values.contains(key)) throw InputError(file, "# layer", spec, rule);
  if (values.size() != keys.size()) throw InputError(file, "# layer", spec, rule);
  MeasuredLayerShape s;
  s.hidden = values["h"];
  s.heads = values["heads"];
  s.kv_heads = values["kv_heads"];
  s.ffn = values["ffn"];
  s.seq = values["seq"];
  s.micro_batch = values["mb"];
  return s;
}

bool starts_with(const std::string& s, const char* prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

MeasuredLayer measured_layer(const CalibrationTable& table) {
  MeasuredLayer layer;
  layer.file = table.file;
  const auto spec = table.header.find("layer");
  if (spec == table.header.end())
    throw InputError(table.file, "# layer", "",
                     "a layer table needs its '# layer: h=...' header line: write it with trainsim-calibrate --layer");
  layer.shape = parse_shape(table.file, spec->second);
  // Today's calibrator measures attention unfused and says so; a table without the line
  // was not written by it with a fused kernel either.
  const auto attention = table.header.find("attention");
  layer.shape.unfused_attention = attention == table.header.end() || starts_with(attention->second, "unfused");
  for (const CalibrationRow& row : table.rows) {
    if (row.kernel == "layer_fwd")
      layer.forward_s = row.time_s;
    else if (row.kernel == "layer_bwd")
      layer.backward_s = row.time_s;
    else if (starts_with(row.kernel, k_layer_prefix))
      layer.ops.push_back({row.kernel.substr(std::string(k_layer_prefix).size()), row.time_s});
  }
  for (const auto& [kernel, seconds] : {std::pair{"layer_fwd", layer.forward_s}, {"layer_bwd", layer.backward_s}})
    if (seconds == 0)
      throw InputError(table.file, kernel, "missing", "a layer table has one layer_fwd and one layer_bwd row");
  return layer;
}

std::string measured_op_name(const Op& op) {
  if (!is_attention_core(op)) return op.name;
  return op.pass == OpPass::forward ? "attention" : "attention.bwd";
}

double TimePair::deviation() const {
  return measured() && predicted() ? predicted_s / measured_s - 1.0 : 0.0;
}

bool LayerCheck::within(double tolerance) const {
  return std::abs(layer().deviation()) <= tolerance;
}

LayerCheck check_layer(const PassOps& ops, const ComputeModel& model, const MeasuredLayer& measured) {
  LayerCheck check;
  std::map<std::string, double> measured_s;
  for (const MeasuredLayerOp& op : measured.ops) measured_s[op.name] += op.time_s;
  std::map<std::string, std::size_t> row_of;
  for (const std::vector<Op>* pass : {&ops.forward, &ops.backward}) {
    for (const Op& op : *pass) {
      const double seconds = model.time_s(op);
      (pass == &ops.forward ? check.forward : check.backward).predicted_s += seconds;
      const std::string name = measured_op_name(op);
      auto [it, added] = row_of.emplace(name, check.rows.size());
      if (added) {
        const auto m = measured_s.find(name);
        check.rows.push_back({name, op.pass, 0, {0, m == measured_s.end() ? 0.0 : m->second}});
      }
      LayerCheckRow& row = check.rows[it->second];
      row.ops += 1;
      row.time.predicted_s += seconds;
    }
  }
  for (const MeasuredLayerOp& op : measured.ops)
    if (row_of.emplace(op.name, check.rows.size()).second)
      check.rows.push_back({op.name,
                            op.name.ends_with(".bwd") || op.name.ends_with("grad") ? OpPass::backward : OpPass::forward,
                            0,
                            {0, measured_s[op.name]}});
  check.forward.measured_s = measured.forward_s;
  check.backward.measured_s = measured.backward_s;
  return check;
}

}  // namespace trainsim
