#include "sim/drill/drill_trace_writer.hpp"

#include <cstddef>
#include <cstring>

#include "sim/core/output_file.hpp"
#include "sim/trace/hdf5_handle.hpp"

namespace trainsim::drill {

namespace {

using hdf5::Handle;
constexpr size_t k_run_chars = 40;

struct LossRow {
  char run[k_run_chars];
  std::int64_t step;
  double loss;
  double lr;
  double loss_scale;
  std::int8_t skipped;
  std::int32_t dp;
};

struct DivergenceRow {
  char run[k_run_chars];
  std::int32_t dp;
  std::int32_t grad_accum;
  std::int64_t global_batch;
  double max_abs_loss_diff;
  double final_loss_diff;
  double max_param_diff;
  std::int8_t bit_identical;
  std::int32_t restarts;
  std::int64_t steps_redone;
  std::int64_t skipped_steps;
  double samples_duplicated;
  double samples_skipped;
  double cursor_model_duplicated;
  double cursor_model_skipped;
  std::int64_t gradient_step;
  double gradient_max_abs_diff;
  double gradient_rel_l2_diff;
};

struct Field {
  const char* name;
  size_t offset;
  hid_t native;
  hid_t stored;  ///< H5I_INVALID_HID: the run name string
};

// The compound type of `fields`: native layout in memory, packed little-endian in the file.
Handle compound(const std::vector<Field>& fields, size_t native_size, bool file) {
  const Handle text = hdf5::fixed_string_type(k_run_chars);
  size_t packed = 0;
  for (const Field& f : fields) packed += f.stored == H5I_INVALID_HID ? k_run_chars : H5Tget_size(f.stored);
  Handle type(H5Tcreate(H5T_COMPOUND, file ? packed : native_size), H5Tclose, "create compound type");
  size_t offset = 0;
  for (const Field& f : fields) {
    const hid_t member = f.stored == H5I_INVALID_HID ? text.get() : (file ? f.stored : f.native);
    hdf5::check(H5Tinsert(type.get(), f.name, file ? offset : f.offset, member), std::string("insert ") + f.name);
    offset += H5Tget_size(member);
  }
  return type;
}

Field text(const char* n, size_t o) {
  return {n, o, H5I_INVALID_HID, H5I_INVALID_HID};
}
Field i8(const char* n, size_t o) {
  return {n, o, H5T_NATIVE_INT8, H5T_STD_I8LE};
}
Field i32(const char* n, size_t o) {
  return {n, o, H5T_NATIVE_INT32, H5T_STD_I32LE};
}
Field i64(const char* n, size_t o) {
  return {n, o, H5T_NATIVE_INT64, H5T_STD_I64LE};
}
Field f64(const char* n, size_t o) {
  return {n, o, H5T_NATIVE_DOUBLE, H5T_IEEE_F64LE};
}

Handle loss_type(bool file) {
  return compound(
      {text("run", offsetof(LossRow, run)), i64("step", offsetof(LossRow, step)), f64("loss", offsetof(LossRow, loss)),
       f64("lr", offsetof(LossRow, lr)), f64("loss_scale", offsetof(LossRow, loss_scale)),
       i8("skipped", offsetof(LossRow, skipped)), i32("dp", offsetof(LossRow, dp))},
      sizeof(LossRow), file);
}

Handle divergence_type(bool file) {
  using R = DivergenceRow;
  return compound(
      {text("run", offsetof(R, run)), i32("dp", offsetof(R, dp)), i32("grad_accum", offsetof(R, grad_accum)),
       i64("global_batch", offsetof(R, global_batch)), f64("max_abs_loss_diff", offsetof(R, max_abs_loss_diff)),
       f64("final_loss_diff", offsetof(R, final_loss_diff)), f64("max_param_diff", offsetof(R, max_param_diff)),
       i8("bit_identical", offsetof(R, bit_identical)), i32("restarts", offsetof(R, restarts)),
       i64("steps_redone", offsetof(R, steps_redone)), i64("skipped_steps", offsetof(R, skipped_steps)),
       f64("samples_duplicated", offsetof(R, samples_duplicated)), f64("samples_skipped", offsetof(R, samples_skipped)),
       f64("cursor_model_duplicated", offsetof(R, cursor_model_duplicated)),
       f64("cursor_model_skipped", offsetof(R, cursor_model_skipped)), i64("gradient_step", offsetof(R, gradient_step)),
       f64("gradient_max_abs_diff", offsetof(R, gradient_max_abs_diff)),
       f64("gradient_rel_l2_diff", offsetof(R, gradient_rel_l2_diff))},
      sizeof(R), file);
}

template <size_t N>
void copy_text(char (&out)[N], const std::string& s) {
  std::memset(out, 0, N);
  std::memcpy(out, s.data(), std::min(s.size(), N));
}

void add_curve(std::vector<LossRow>& rows, const std::string& run, const std::vector<StepRecord>& curve) {
  for (const StepRecord& s : curve) {
    LossRow r{};
    copy_text(r.run, run);
    r.step = s.step;
    r.loss = s.loss;
    r.lr = s.lr;
    r.loss_scale = s.loss_scale;
    r.skipped = s.skipped ? 1 : 0;
    r.dp = s.dp;
    rows.push_back(r);
  }
}

}  // namespace

void write_drill_trace(const std::string& path, const DrillResult& result, const std::string& scenario) {
  AtomicOutputFile out(path);
  hdf5::write_file(out, [&](hid_t root) {
    const Handle group = hdf5::create_group(root, "drill");
    const hid_t g = group.get();
    const DrillSpec& s = result.spec;
    hdf5::write_attribute(g, "schema_version", std::string(k_drill_schema_version));
    hdf5::write_attribute(g, "scenario", scenario);
    hdf5::write_attribute(g, "steps", static_cast<std::int64_t>(s.steps));
    hdf5::write_attribute(g, "seed", static_cast<std::uint64_t>(s.seed));
    hdf5::write_attribute(g, "dp", static_cast<std::int64_t>(s.layout.dp));
    hdf5::write_attribute(g, "scenario_dp", static_cast<std::int64_t>(result.scenario_dp));
    hdf5::write_attribute(g, "dp_cap", static_cast<std::int64_t>(result.dp_cap));
    hdf5::write_attribute(g, "micro_batch", static_cast<std::int64_t>(s.layout.micro_batch));
    hdf5::write_attribute(g, "grad_accum", static_cast<std::int64_t>(s.layout.grad_accum));
    hdf5::write_attribute(g, "global_batch", static_cast<std::int64_t>(s.layout.global_batch()));
    hdf5::write_attribute(g, "tokens_per_sample", static_cast<std::int64_t>(s.model.tokens_per_sample));
    hdf5::write_attribute(g, "parameters", static_cast<std::int64_t>(result.parameters));
    hdf5::write_attribute(g, "reduction_order", order_name(s.order));
    hdf5::write_attribute(g, "reduction_precision", format_name(s.reduction_format));
    hdf5::write_attribute(g, "loss_scaling", static_cast<std::int64_t>(s.loss_scale.enabled ? 1 : 0));
    hdf5::write_attribute(g, "sampler", std::string(s.sampler == DataSampler::global ? "global" : "per_rank"));
    hdf5::write_attribute(g, "checkpoint_every", static_cast<std::int64_t>(s.checkpoint_every));
    std::vector<double> fail_at(result.fail_at.begin(), result.fail_at.end());
    hdf5::write_attribute(g, "fail_at", fail_at);

    std::vector<LossRow> loss;
    add_curve(loss, "uninterrupted", result.reference);
    for (const RunComparison& r : result.runs) add_curve(loss, r.name, r.curve);
    {
      const Handle set =
          hdf5::write_table(g, "loss", loss_type(true).get(), loss_type(false).get(), loss.data(), loss.size());
      hdf5::write_attribute(set.get(), "rule",
                            std::string("one row per run and step of its surviving history; run 'uninterrupted' is "
                                        "the reference, the others are named as in /drill/divergence"));
    }
    std::vector<DivergenceRow> div;
    for (const RunComparison& c : result.runs) {
      DivergenceRow r{};
      copy_text(r.run, c.name);
      r.dp = c.layout.dp;
      r.grad_accum = c.layout.grad_accum;
      r.global_batch = c.layout.global_batch();
      r.max_abs_loss_diff = c.max_abs_loss_diff;
      r.final_loss_diff = c.final_loss_diff;
      r.max_param_diff = c.max_param_diff;
      r.bit_identical = c.bit_identical ? 1 : 0;
      r.restarts = c.restarts;
      r.steps_redone = c.steps_redone;
      r.skipped_steps = c.skipped_steps;
      r.samples_duplicated = c.samples_duplicated;
      r.samples_skipped = c.samples_skipped;
      r.cursor_model_duplicated = c.cursor_model_duplicated;
      r.cursor_model_skipped = c.cursor_model_skipped;
      r.gradient_step = c.gradient_step;
      r.gradient_max_abs_diff = c.gradient_max_abs_diff;
      r.gradient_rel_l2_diff = c.gradient_rel_l2_diff;
      div.push_back(r);
    }
    hdf5::write_table(g, "divergence", divergence_type(true).get(), divergence_type(false).get(), div.data(),
                      div.size());
  });
  out.commit();
}

}  // namespace trainsim::drill
