#include "sim/drill/drill_runner.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "sim/drill/tiny_model.hpp"

namespace trainsim::drill {

long long default_fail_step(long long steps) {
  return std::max<long long>(1, steps * 7 / 10);
}

std::optional<Layout> same_batch_layout(const Layout& l, int cap) {
  if (l.grad_accum % 2 == 0 && l.dp * 2 <= cap) {
    Layout out = l;
    out.dp *= 2;
    out.grad_accum /= 2;
    return out;
  }
  if (l.dp % 2 == 0) {
    Layout out = l;
    out.dp /= 2;
    out.grad_accum *= 2;
    return out;
  }
  return std::nullopt;
}

namespace {

std::string omission_effect(CheckpointItem item) {
  switch (item) {
    case CheckpointItem::rng:
      return "restored without the RNG states: every rank's dropout generator back at offset 0, so the steps after "
             "the restore redraw the masks of steps 1, 2, ...";
    case CheckpointItem::cursor:
      return "restored without the data cursor: the loader starts again at sample 0";
    case CheckpointItem::optimizer:
      return "restored without the optimizer state: Adam's moments and step count back at 0";
    case CheckpointItem::scheduler:
      return "restored without the scheduler: the learning rate warms up again from step 1";
    case CheckpointItem::loss_scale:
      return "restored without the loss scale: back at its initial value, the overflows happen again";
  }
  return "";
}

}  // namespace

RunComparison compare(const TrainedRun& reference, const TrainedRun& run) {
  RunComparison c;
  c.curve = run.steps;
  bool identical = run.final_params.size() == reference.final_params.size();
  for (size_t i = 0; i < run.steps.size() && i < reference.steps.size(); ++i) {
    const double d = run.steps[i].loss - reference.steps[i].loss;
    c.max_abs_loss_diff = std::max(c.max_abs_loss_diff, std::abs(d));
    identical = identical && std::bit_cast<std::uint64_t>(run.steps[i].loss) ==
                                 std::bit_cast<std::uint64_t>(reference.steps[i].loss);
  }
  if (!run.steps.empty()) c.final_loss_diff = run.steps.back().loss - reference.steps.back().loss;
  if (run.final_params.size() == reference.final_params.size()) {
    c.max_param_diff = (run.final_params - reference.final_params).cwiseAbs().maxCoeff();
    for (Eigen::Index i = 0; identical && i < run.final_params.size(); ++i)
      identical =
          std::bit_cast<std::uint32_t>(run.final_params[i]) == std::bit_cast<std::uint32_t>(reference.final_params[i]);
  }
  c.bit_identical = identical;
  c.restarts = run.restarts;
  c.steps_redone = run.steps_redone;
  c.skipped_steps = run.skipped_steps;
  c.samples_duplicated = run.samples_duplicated;
  c.samples_skipped = run.samples_skipped;
  c.cursor_model_duplicated = run.cursor_model_duplicated;
  c.cursor_model_skipped = run.cursor_model_skipped;
  return c;
}

DrillResult run_drill(const DrillSpec& spec, const DrillOptions& options) {
  DrillResult result;
  result.spec = spec;
  result.scenario_dp = options.scenario_dp;
  result.dp_cap = options.dp_cap;
  result.fail_at = options.fail_at.empty() ? std::vector<long long>{default_fail_step(spec.steps)} : options.fail_at;
  std::sort(result.fail_at.begin(), result.fail_at.end());
  result.parameters = TinyModel(spec.model).parameter_count();

  const TrainedRun reference = train(spec);
  result.reference = reference.steps;
  result.reference_skipped_steps = reference.skipped_steps;
  if (result.fail_at.front() <= spec.checkpoint_every)
    result.notes.push_back("no checkpoint before step " + std::to_string(result.fail_at.front()) +
                           ": the first restart begins again from step 0");

  RecoveryPlan full{result.fail_at, std::nullopt, std::nullopt};
  RunComparison recovered = compare(reference, train(spec, full));
  recovered.name = "recovered";
  recovered.description = "restored from the last checkpoint, every item saved";
  recovered.layout = spec.layout;
  result.runs.push_back(std::move(recovered));

  for (const CheckpointItem item : options.omit) {
    RecoveryPlan plan{result.fail_at, item, std::nullopt};
    RunComparison c = compare(reference, train(spec, plan));
    c.name = "omit " + item_name(item);
    c.description = omission_effect(item);
    c.layout = spec.layout;
    if (item == CheckpointItem::loss_scale && !spec.loss_scale.enabled)
      result.notes.push_back("omit loss_scale: no effect, this precision trains without loss scaling");
    result.runs.push_back(std::move(c));
  }

  if (!options.scaling) return result;
  std::optional<Layout> other = same_batch_layout(spec.layout, options.dp_cap);
  if (options.other_dp > 0) {
    const long long per_rank = static_cast<long long>(spec.layout.micro_batch) * options.other_dp;
    other.reset();
    if (spec.layout.global_batch() % per_rank == 0) {
      Layout l = spec.layout;
      l.dp = options.other_dp;
      l.grad_accum = static_cast<int>(spec.layout.global_batch() / per_rank);
      other = l;
    }
  }
  if (!other) {
    result.notes.push_back("scaling comparisons skipped: no other data-parallel size keeps the global batch of " +
                           std::to_string(spec.layout.global_batch()));
    return result;
  }

  DrillSpec same = spec;
  same.layout = *other;
  const TrainedRun same_run = train(same);
  RunComparison s = compare(reference, same_run);
  s.name = "same batch dp " + std::to_string(other->dp);
  s.description =
      "global batch kept (grad_accum " + std::to_string(other->grad_accum) + "): only the summation order differs";
  s.layout = *other;
  if (same_run.first_gradient_step == reference.first_gradient_step && reference.first_gradient_step > 0) {
    // The first update of both: same weights, samples and dropout masks, only the order differs.
    const Eigen::VectorXf diff = same_run.first_gradient - reference.first_gradient;
    s.gradient_step = reference.first_gradient_step;
    s.gradient_max_abs_diff = diff.cwiseAbs().maxCoeff();
    s.gradient_rel_l2_diff = diff.norm() / reference.first_gradient.norm();
  } else {
    result.notes.push_back("same batch: the first updates differ in step (overflow), no gradient compared");
  }
  result.runs.push_back(std::move(s));

  DrillSpec grown = spec;
  grown.layout.dp = other->dp;  // grad_accum kept: the global batch follows the ranks
  RunComparison g = compare(reference, train(grown));
  g.name = "batch grows dp " + std::to_string(other->dp);
  g.description = "grad_accum kept: global batch " + std::to_string(grown.layout.global_batch()) + " instead of " +
                  std::to_string(spec.layout.global_batch()) + ", learning rate unchanged";
  g.layout = grown.layout;
  result.runs.push_back(std::move(g));

  for (const DataSampler sampler : {DataSampler::global, DataSampler::per_rank}) {
    DrillSpec resharded = spec;
    resharded.sampler = sampler;
    const TrainedRun base = sampler == spec.sampler ? reference : train(resharded);
    RecoveryPlan plan{result.fail_at, std::nullopt, *other};
    RunComparison r = compare(base, train(resharded, plan));
    const std::string name = sampler == DataSampler::global ? "global" : "per_rank";
    r.name = "reshard dp " + std::to_string(other->dp) + " " + name;
    r.description = "restored at dp " + std::to_string(other->dp) + ", global batch kept, " + name + " sampler" +
                    (sampler == spec.sampler ? " (the scenario's)" : "") +
                    "; against the uninterrupted run with that sampler";
    r.layout = *other;
    result.runs.push_back(std::move(r));
  }
  return result;
}

}  // namespace trainsim::drill
