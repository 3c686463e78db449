#pragma once
// What a training-semantics drill trains and how: the tiny model, the data-parallel layout,
// the gradient reduction, the optimizer and schedule, the checkpoints and the interruptions.
// A value type filled once from the scenario and the command line (sim/cli/drill_command.cpp);
// nothing below it reads the scenario.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/drill/number_format.hpp"
#include "sim/drill/reduction_order.hpp"
#include "sim/run/run_spec.hpp"

namespace trainsim::drill {

/// The tiny language model: each token predicted from the `context` tokens before it
/// through an embedding, one tanh hidden layer with dropout, and a softmax over `vocab`.
struct ModelShape {
  int vocab = 64;
  int context = 2;             ///< previous tokens the model sees
  int embed = 16;              ///< embedding width
  int hidden = 64;             ///< hidden units
  int tokens_per_sample = 16;  ///< predicted tokens per sample (the "sequence")
  double dropout = 0.1;        ///< probability a hidden unit is dropped
};

/// Adam (Kingma & Ba 2015, Algorithm 1) with a linear warmup then cosine decay of the learning
/// rate (Loshchilov & Hutter 2017; the schedule of GPT-3, Brown et al. 2020, App. B).
struct OptimizerSpec {
  double lr_peak = 1e-2;
  double lr_min = 1e-3;
  long long warmup_steps = 10;
  long long decay_steps = 100;  ///< cosine reaches lr_min here
  double beta1 = 0.9;
  double beta2 = 0.95;  ///< GPT-3's, Megatron-LM's usual setting
  double epsilon = 1e-8;
};

/// Dynamic loss scaling (Micikevicius et al. 2018, "Mixed Precision Training", §3.2) with
/// PyTorch's GradScaler rules: halve on an overflow (the step is skipped), double after 2000
/// steps without one. The start, 2^24, is the drill's choice between GradScaler's 2^16 and
/// Megatron-LM's --initial-loss-scale 2^32: the tiny model's gradients (<= ~1) would never
/// overflow fp16 at 2^16, and at 2^32 a short drill would spend a third of its steps backing off.
struct LossScaleSpec {
  bool enabled = false;
  double initial = 0x1p24;
  double backoff = 0.5;
  double growth = 2.0;
  long long growth_interval = 2000;
};

/// A checkpoint item a recovery may leave out (`--omit`).
enum class CheckpointItem { rng, cursor, optimizer, scheduler, loss_scale };
std::string item_name(CheckpointItem item);
std::optional<CheckpointItem> parse_item(const std::string& text);
std::vector<std::string> item_names();

/// One training run's data-parallel layout: global batch = micro_batch x grad_accum x dp.
struct Layout {
  int dp = 1;              ///< simulated data-parallel ranks
  int micro_batch = 1;     ///< samples per micro-batch per rank
  int grad_accum = 1;      ///< micro-batches per step per rank
  int ranks_per_node = 1;  ///< for the hierarchical order: consecutive DP ranks that share a node
  long long global_batch() const { return static_cast<long long>(micro_batch) * grad_accum * dp; }
};

struct DrillSpec {
  ModelShape model;
  Layout layout;
  OptimizerSpec optimizer;
  LossScaleSpec loss_scale;
  ReductionOrder order = ReductionOrder::ring;
  NumberFormat reduction_format = NumberFormat::fp32;  ///< the format partial sums travel in
  DataSampler sampler = DataSampler::global;
  long long steps = 100;
  long long checkpoint_every = 20;  ///< a checkpoint after every this many steps
  std::uint64_t seed = 1;
};

/// What interrupts one run and how it comes back.
struct RecoveryPlan {
  std::vector<long long> fail_at;      ///< the job dies while training these steps (1-based), once each
  std::optional<CheckpointItem> omit;  ///< left out of every checkpoint restore
  /// Layout of every restore (resharding); empty: the checkpoint's.
  std::optional<Layout> restore_layout;
};

}  // namespace trainsim::drill
