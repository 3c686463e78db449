#pragma once
// A lower bound on a step's simulated time from its costs alone, before any simulation: what
// `trainsim plan` orders its layouts by and prunes with (sim/cli/plan_command.cpp).
//
// Each GPU runs its compute on one stream, every pass taking at least its compute time
// (stage_costs.hpp: the kernels, the host's waits) and the collectives it blocks on (TP
// collectives not overlapped with a GEMM, the MoE all-to-alls), each at least the (n - 1)/n
// of its bytes a GPU must send or receive at its port's best rate, and, with ZeRO-3, the time
// its domain's NICs take to bring in its units' parameters for every group of its stage there
// (each unit is gathered after the pass starts); the rest only adds. So
// stage s needs W_s = its micro-batches' forward, recomputed, backward and weight passes over
// all its chunks, and cannot start before the first micro-batch has come forward through
// stages 0 .. s-1 (head_s: the least, over the chunks, of those stages' forward times of that
// chunk). Unless the schedule defers weight gradients (zero-bubble), its last backward is
// followed by the same micro-batch's backward on stages s-1 .. 0 (tail_s, likewise). Every
// step of a run repeats this, so the simulated step time (the run's end over its steps) is at
// least max over s of head_s + W_s + tail_s. The optimizer is left out there (it may overlap
// the next step's data wait). And it is at least the time each NVLink domain's NICs need for
// the step's data-parallel traffic (gradient reductions, ZeRO-3's gathers) at their simulated
// rate, however it overlaps compute. A stage's last pass (the backward of its chunks' last
// micro-batch, unless the schedule defers weight gradients or is DualPipe) starts no earlier
// than head_s + W_s less that pass, and that chunk's gradients are reduced only then, the
// optimizer and, under ZeRO-1/2 without overlap_param_gather, the gather of the updated
// parameters following before the stage ends its step: the step is at least that start plus
// those NIC times and the optimizer's kernels. Latencies, pipeline transfers, context
// parallelism's exchanges and the rest of what compute could not hide are left out, so
// layouts where those weigh come out above their bound. Held against the simulation on every
// kind of layout (tests/step/step_bound_test.cpp).

#include "sim/compute/compute_model.hpp"
#include "sim/scenario/scenario.hpp"

namespace trainsim {

/// Seconds below which `scenario`'s simulated step time cannot fall, timed by `compute`.
double step_time_lower_bound_s(const Scenario& scenario, const ComputeModel& compute);

}  // namespace trainsim
