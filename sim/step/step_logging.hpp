#pragma once
// The step's metrics as NeMo 2's Lightning strategy logs them (training.loss_host_sync, the
// stack MLPerf Training v5.1's Llama 3.1 implementations run), and Lightning's read of them on
// the host at the end of every step. Each logged value is a tensor the framework creates,
// casts and copies with one framework call each, at the host's cost per op (topologies/host_cost.hpp),
// as host_ops_before_norm counts the loss reduction's calls:
//
// - before the optimizer step, in the loss sync's window (loss_host_sync.hpp), NeMo's
//   MegatronStrategy.training_step (NVIDIA/NeMo @ 8cfedd72,
//   nemo/lightning/pytorch/strategies/megatron_strategy.py) logs the global step twice
//   ("global_step", "step"), after building it as a pinned tensor and copying it to the GPU
//   (torch.tensor, .to), and the reduced loss (NEMO_LOG_TRAIN_LOSS, on by default and exported by
//   MLPerf's config_common.sh). Lightning's _ResultMetric.update
//   (src/lightning/pytorch/trainer/connectors/logger_connector/result.py) casts a value that is
//   not float32 (the integer step, twice) and clones every value it logs on a step;
// - after the optimizer step, in the norm sync's window (fixed_costs.hpp host_after_norm),
//   the strategy's optimizer_step logs the gradient norm (a pinned tensor, its copy to the
//   GPU, the clone), and MLPerf's DeltaTimingCallback.on_train_batch_end logs the step's
//   wall time (mlcommons/training_results_v5.1 @ 441d65f4,
//   NVIDIA/benchmarks/llama31_8b/implementations/nemo/custom_callbacks.py: torch.as_tensor,
//   the clone);
// - then, with a logger attached (pretrain.py appends its MetricsLogger to trainer.loggers)
//   and log_every_n_steps = 1 (conf/custom.yaml's default, LOG_EVERY_N_STEPS unset),
//   Lightning's _LoggerConnector.log_metrics turns every logged tensor into a Python number
//   (convert_tensors_to_scalars: one .item() each, the five values above). The first read of a
//   GPU tensor waits for everything queued before it, the optimizer's kernels included, so
//   the host's work from there to the next step's first launch (the other reads, the gradient
//   buffers' reset, the static batch copies, the graph's replay: host_ops_after_step_read)
//   runs with the GPU idle instead of behind the optimizer's kernels.
//
// The Python around these calls that launches nothing (Lightning's hooks over the callbacks,
// the MLPerf logger's JSON line, the loop's bookkeeping, the learning-rate scheduler) is not
// priced: no measured per-call figure for it is at hand.

#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// The logging's framework calls between the loss's host sync and the gradient norm's sync;
/// 0 without training.loss_host_sync.
int logging_ops_before_norm(const Scenario& scenario);

/// The logging's framework calls after the norm's sync up to and including the logger's first
/// read, which waits for the GPU; 0 without training.loss_host_sync.
int logging_ops_before_read(const Scenario& scenario);

/// The logger's reads after its first, which run with the GPU idle; 0 without
/// training.loss_host_sync.
int logging_ops_after_read(const Scenario& scenario);

/// True where the logger's first read waits for the GPU's queue at the end of every step.
bool reads_step_metrics(const Scenario& scenario);

}  // namespace trainsim
