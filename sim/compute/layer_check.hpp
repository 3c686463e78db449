#pragma once
// The compute model against one transformer layer measured on a GPU: the table
// `trainsim-calibrate --layer` writes (kernels/README.md, "Layer mode") holds one
// `layer.<op>` row per kernel timed alone and the totals `layer_fwd` and `layer_bwd`, each
// pass timed back to back. The check sets the simulator's time of the same layer (the sum
// of its ops' times, as the step simulation charges them: sim/step/stage_costs.cpp) beside
// them, op by op and per pass. Issue 8 asks for the layer within 10 %.

#include <string>
#include <vector>

#include "models/layer_workload.hpp"
#include "sim/compute/calibration_table.hpp"
#include "sim/compute/compute_model.hpp"

namespace trainsim {

/// The layer a table measured: its `# layer:` header
/// (`h=8192,heads=64,kv_heads=8,ffn=28672,seq=4096,mb=1`) and whether its attention was
/// unfused (`# attention: unfused ...`, as trainsim-calibrate measures it today).
struct MeasuredLayerShape {
  int hidden = 0;
  int heads = 0;
  int kv_heads = 0;
  int ffn = 0;
  int seq = 0;
  int micro_batch = 0;
  bool unfused_attention = true;
};

/// One measured kernel time, without the table's `layer.` prefix ("qkv.wgrad", "attention").
struct MeasuredLayerOp {
  std::string name;
  double time_s = 0;
};

struct MeasuredLayer {
  std::string file;
  MeasuredLayerShape shape;
  std::vector<MeasuredLayerOp> ops;  ///< in table order
  double forward_s = 0;              ///< `layer_fwd`
  double backward_s = 0;             ///< `layer_bwd`
};

/// Reads a table's layer rows. Throws InputError(file, key, value, rule) when the `layer`
/// header is missing or malformed, or the `layer_fwd` / `layer_bwd` rows are missing.
MeasuredLayer measured_layer(const CalibrationTable& table);

/// The measured row's name for a workload op: unfused attention's products and softmax
/// ("attention.scores", "attention.values.dgrad2", ...) all run inside the calibrator's one
/// `attention` (forward) or `attention.bwd` (backward) row; every other op has its own name.
std::string measured_op_name(const Op& op);

/// A predicted time beside a measured one; `measured_s` is 0 where nothing was measured.
struct TimePair {
  double predicted_s = 0;
  double measured_s = 0;
  bool measured() const { return measured_s > 0; }
  bool predicted() const { return predicted_s > 0; }
  /// predicted / measured - 1 (0 when either side is missing).
  double deviation() const;
};

/// One measured name: the workload ops mapped to it (their times summed) and the row.
struct LayerCheckRow {
  std::string name;
  OpPass pass = OpPass::forward;
  int ops = 0;  ///< workload ops mapped to this name (0: measured only)
  TimePair time;
};

struct LayerCheck {
  std::vector<LayerCheckRow> rows;  ///< forward then backward, in workload order; measured-only rows last
  TimePair forward;                 ///< every forward op against `layer_fwd`
  TimePair backward;                ///< every backward op against `layer_bwd`
  TimePair layer() const {
    return {forward.predicted_s + backward.predicted_s, forward.measured_s + backward.measured_s};
  }
  /// True when the whole layer's deviation is at most `tolerance` either way (0.1 = 10 %).
  bool within(double tolerance) const;
};

/// Times `ops`' forward and backward passes with `model` and sets them beside `measured`.
/// Recomputed forward work is not compared (the calibrator's layer has none).
LayerCheck check_layer(const PassOps& ops, const ComputeModel& model, const MeasuredLayer& measured);

}  // namespace trainsim
