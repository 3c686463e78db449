#pragma once
// One optimizer step simulated on SimGrid: every pipeline stage plays its schedule; compute
// takes the compute model's time; tensor-parallel collectives, pipeline transfers and
// gradient reductions run on the engine's platform, where they share links.
//
// Symmetry (../shared/DESIGN.md, "Engine notes"): data-parallel replicas of a homogeneous
// cluster do identical work, and a tensor-parallel group's ranks do too. By default one
// replica is simulated (one per class when [variations] make GPUs or NICs differ:
// replica_classes.hpp), its TP collectives are simulated once per distinct size and then
// reused, and the gradient reductions of every data-parallel group run for real (less the
// legs that repeat links others load alike, to the bit: gradient_plans.hpp). With
// `reduce_symmetry = false` every replica is simulated and every collective runs: the
// tests hold the two equal on configurations small enough to run both.

#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/step/step_result.hpp"

namespace trainsim {

struct StepOptions {
  bool reduce_symmetry = true;
  /// On an oversubscribed fabric the pipeline transfers of all replicas are simulated
  /// together (so that they contend for the leaf uplinks) when one send has at most this many
  /// GPU pairs. Otherwise replica 0's alone: on a full-bisection fabric every GPU has its own
  /// NIC and replicas' pipeline traffic shares no bottleneck (measured equal: tests/step).
  int max_replicated_transfers = 256;
  /// Each stage actor runs its sleeps lazily (sim/step/lazy_clock.hpp): a pass's compute and
  /// cached collectives end as one engine event instead of one each. false: one sleep each.
  bool lazy_sleeps = true;
  /// With symmetry reduced, the platform builds only the endpoints the step can touch
  /// (engine/endpoint_selection.hpp): the same times, to the bit. false: the whole cluster.
  bool sparse_platform = true;
  /// With symmetry reduced, the gradient reductions and ZeRO gathers leave out the legs that
  /// repeat links their kept legs load alike (step/gradient_plans.hpp): the same times, to
  /// the bit. false: every leg runs.
  bool reduce_gradient_legs = true;
  /// With symmetry not reduced (--full), a TP group whose links carry nothing else reuses
  /// the duration of a collective timed before on such a group (isolated_tp_groups.hpp):
  /// the same times, to rounding. false: every TP collective runs. Off while link samples
  /// are taken, so that the trace's NVLink loads hold every collective.
  bool reuse_isolated_tp = true;
  /// Receives every simulated activity (not owned; may be null).
  StepObserver* observer = nullptr;
};

/// Simulates `scenario.run.steps` steps and reports per-step averages. Creates the
/// process' SimGrid engine: call once per process.
StepResult simulate_step(const Scenario& scenario, const ComputeModel& compute, const StepOptions& options = {});

}  // namespace trainsim
