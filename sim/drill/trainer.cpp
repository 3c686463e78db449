#include "sim/drill/trainer.hpp"

#include <algorithm>
#include <set>

#include "sim/core/error.hpp"
#include "sim/drill/drill_checkpoint.hpp"
#include "sim/drill/lr_schedule.hpp"
#include "sim/drill/reduction_order.hpp"
#include "sim/drill/tiny_model.hpp"
#include "sim/drill/token_stream.hpp"
#include "sim/run/data_cursor.hpp"

namespace trainsim::drill {

namespace {

struct StepOutcome {
  StepRecord record;
  std::vector<long long> samples;
  Eigen::VectorXf gradient;  ///< reduced, unscaled
};

// One optimizer step of `state` (advanced in place).
StepOutcome train_step(const DrillSpec& spec, const TinyModel& model, const TokenStream& stream, TrainState& state) {
  const Layout& layout = state.layout;
  const StepSamples assigned = next_step_samples(spec.sampler, layout, state.cursor);
  const double tokens = static_cast<double>(layout.global_batch()) * spec.model.tokens_per_sample;
  const double scale = state.loss_scale.scale;
  // The mean over the global batch, as the sum of each rank's weighted part: the reduction
  // is a plain sum (Megatron-LM divides each rank's gradient by the data-parallel size).
  const auto weight = static_cast<float>(scale / tokens);

  StepOutcome out;
  std::vector<Eigen::VectorXf> parts(static_cast<size_t>(layout.dp));
  std::vector<double> rank_loss(static_cast<size_t>(layout.dp), 0.0);
  for (int r = 0; r < layout.dp; ++r) {
    Eigen::VectorXf& grad = parts[static_cast<size_t>(r)];
    grad = Eigen::VectorXf::Zero(model.parameter_count());
    for (const std::vector<long long>& micro : assigned[static_cast<size_t>(r)]) {
      std::vector<std::vector<int>> samples;
      samples.reserve(micro.size());
      for (const long long i : micro) samples.push_back(stream.sample(i));
      rank_loss[static_cast<size_t>(r)] +=
          model.accumulate(state.params, samples, micro, state.rng[static_cast<size_t>(r)], weight, grad);
      out.samples.insert(out.samples.end(), micro.begin(), micro.end());
    }
    // Gradients accumulate over micro-batches in fp32 and enter the reduction in its format.
    grad = grad.unaryExpr([&](float x) { return round_to(spec.reduction_format, x); });
    state.rng[static_cast<size_t>(r)].offset += 1;
  }
  Eigen::VectorXf reduced = reduce(parts, spec.order, spec.reduction_format, layout.ranks_per_node);
  double loss = 0;
  for (const double l : rank_loss) loss += l;

  StepRecord& rec = out.record;
  rec.step = state.step + 1;
  rec.loss = loss / tokens;
  rec.loss_scale = scale;
  rec.dp = layout.dp;
  const bool overflow = !reduced.allFinite();
  if (spec.loss_scale.enabled && !overflow) reduced *= static_cast<float>(1.0 / scale);  // a power of two: exact
  if (overflow) {
    rec.skipped = true;
  } else {
    rec.lr = learning_rate(spec.optimizer, state.scheduler_updates);
    adam_update(spec.optimizer, rec.lr, reduced, state.adam, state.params);
    state.scheduler_updates += 1;
  }
  loss_scale_update(spec.loss_scale, overflow, state.loss_scale);
  state.step += 1;
  out.gradient = std::move(reduced);
  return out;
}

void count_samples(TrainedRun& run) {
  std::vector<long long> all;
  for (const auto& s : run.samples) all.insert(all.end(), s.begin(), s.end());
  std::sort(all.begin(), all.end());
  const auto distinct = static_cast<double>(std::unique(all.begin(), all.end()) - all.begin());
  double total = 0;
  for (const auto& s : run.samples) total += static_cast<double>(s.size());
  run.samples_duplicated = total - distinct;
  run.samples_skipped = all.empty() ? 0.0 : static_cast<double>(all[static_cast<size_t>(distinct) - 1] + 1) - distinct;
}

void check(const DrillSpec& spec) {
  const Layout& l = spec.layout;
  if (spec.steps < 1 || l.dp < 1 || l.micro_batch < 1 || l.grad_accum < 1 || spec.checkpoint_every < 1)
    throw Error("drill: steps, checkpoint interval, dp, micro_batch and grad_accum must be >= 1");
}

}  // namespace

TrainedRun train(const DrillSpec& spec, const RecoveryPlan& plan) {
  check(spec);
  const TinyModel model(spec.model);
  const TokenStream stream(spec.model, spec.seed);
  TrainState state = initial_state(spec, model.initial_parameters(spec.seed), spec.layout);
  Checkpoint last = state;  // a failure before the first checkpoint restarts from scratch
  std::set<long long> pending(plan.fail_at.begin(), plan.fail_at.end());
  const bool cursor_saved = plan.omit != CheckpointItem::cursor;
  DataCursor cursor_model(static_cast<double>(spec.layout.global_batch()), 1.0, cursor_saved);

  TrainedRun run;
  run.steps.resize(static_cast<size_t>(spec.steps));
  run.samples.resize(static_cast<size_t>(spec.steps));
  std::vector<bool> trained(static_cast<size_t>(spec.steps), false);
  while (state.step < spec.steps) {
    const long long next = state.step + 1;
    if (pending.erase(next) > 0) {
      // The job dies during step `next`: back to the last checkpoint.
      // Every restart of a resharding plan resumes at its layout, whatever the checkpoint's.
      const Layout layout = plan.restore_layout.value_or(last.layout);
      const bool reshard = layout.dp != last.layout.dp || layout.global_batch() != last.layout.global_batch();
      state = restore(spec, last, plan.omit, layout);
      cursor_model.restarted_from(last.step);
      if (reshard) {
        // A per-rank sampler resumes at its offset times the new size (sampler.hpp).
        const double scale = spec.sampler == DataSampler::per_rank
                                 ? static_cast<double>(layout.dp) / static_cast<double>(last.layout.dp)
                                 : 1.0;
        cursor_model.resized(static_cast<double>(layout.global_batch()), 1.0, scale);
      }
      ++run.restarts;
      continue;
    }
    StepOutcome step = train_step(spec, model, stream, state);
    const auto i = static_cast<size_t>(next - 1);
    if (trained[i]) ++run.steps_redone;
    if (run.first_gradient_step == 0 && !step.record.skipped) {
      run.first_gradient = step.gradient;
      run.first_gradient_step = next;
    }
    trained[i] = true;
    run.steps[i] = step.record;
    run.samples[i] = std::move(step.samples);
    cursor_model.trained_to(next);
    if (next % spec.checkpoint_every == 0) last = state;
  }
  for (const StepRecord& r : run.steps) run.skipped_steps += r.skipped ? 1 : 0;
  run.final_params = state.params;
  count_samples(run);
  run.cursor_model_duplicated = cursor_model.duplicated();
  run.cursor_model_skipped = cursor_model.skipped();
  return run;
}

}  // namespace trainsim::drill
