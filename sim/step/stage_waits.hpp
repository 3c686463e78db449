#pragma once
// What a stage actor's GPU waits for besides its kernels and collectives (stage_actor.hpp):
// the data loader before a step's first-stage forward, the activation copies a pass's compute
// did not hide (CPU offload), and the host's launches a sync-free pass's blocking collectives
// did not hide (a host-bound pass, host_bound_pass.hpp).

#include "sim/step/data_loader.hpp"
#include "sim/step/stage_compute.hpp"
#include "sim/step/stage_context.hpp"

namespace trainsim {

class StageWaits {
 public:
  StageWaits(StageContext& s, StageCompute& compute);

  /// Before the first stage's forward of micro-batch `t`: the wait for the loader (data).
  void wait_data(const PipelineTask& t);
  /// After a pass: the copies its compute did not hide (offload).
  void wait_offload(const PipelineTask& t, const PassCost& pass);
  /// After a pass without a host sync that spent `blocked_s` in blocking collectives: the
  /// host's launches those did not hide, as a record of the pass's. Returns the seconds added.
  double host_beside_collectives(const char* kind, const PipelineTask& t, const PassCost& pass, double blocked_s);

 private:
  StageContext& s_;
  StageCompute& compute_;
  DataLoader loader_;
};

}  // namespace trainsim
