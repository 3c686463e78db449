#include "sim/step/step_logging.hpp"

namespace trainsim {

namespace {
// The values logged each step: global_step, step, reduced_train_loss (training_step),
// grad_norm (optimizer_step), train_step_time (DeltaTimingCallback); step_logging.hpp.
constexpr int k_logged_values = 5;
}  // namespace

bool reads_step_metrics(const Scenario& s) { return s.training.loss_host_sync && s.training.offload != Offload::cpu; }

int logging_ops_before_norm(const Scenario& s) {
  if (!reads_step_metrics(s)) return 0;
  constexpr int k_step_tensor = 2;  // torch.tensor(global_step, pin_memory=True), .to("cuda")
  constexpr int k_step_logs = 2 * 2;  // "global_step" and "step": the cast to float32 and the clone
  constexpr int k_loss_log = 1;       // "reduced_train_loss": the clone
  return k_step_tensor + k_step_logs + k_loss_log;
}

int logging_ops_before_read(const Scenario& s) {
  if (!reads_step_metrics(s)) return 0;
  constexpr int k_norm_log = 3;    // torch.tensor(grad_norm, pin_memory=True), .to("cuda"), the clone
  constexpr int k_timing_log = 2;  // torch.as_tensor(d), the clone
  constexpr int k_first_read = 1;
  return k_norm_log + k_timing_log + k_first_read;
}

int logging_ops_after_read(const Scenario& s) { return reads_step_metrics(s) ? k_logged_values - 1 : 0; }

}  // namespace trainsim
