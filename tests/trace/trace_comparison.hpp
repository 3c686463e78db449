#pragma once
// Test support: field-by-field comparison of two traces, and a file's bytes.

#include <gtest/gtest.h>

#include <fstream>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "sim/trace/trace_contents.hpp"

namespace trainsim::test {

inline std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream bytes;
  bytes << in.rdbuf();
  return bytes.str();
}

/// A run's scalars by name, each as it is typed: (doubles, integers).
inline std::pair<std::vector<std::pair<std::string, double>>, std::vector<std::pair<std::string, long long>>>
run_fields(const RunResult& r) {
  std::pair<std::vector<std::pair<std::string, double>>, std::vector<std::pair<std::string, long long>>> fields;
  for_each_run_field(r, [&fields](const char* name, const auto& value) {
    if constexpr (std::is_floating_point_v<std::decay_t<decltype(value)>>) {
      fields.first.emplace_back(name, value);
    } else {
      fields.second.emplace_back(name, value);
    }
  });
  return fields;
}

/// Every scalar (for_each_run_field) and every interruption and checkpoint record equal.
inline void expect_equal_runs(const RunResult& a, const RunResult& b) {
  EXPECT_EQ(run_fields(a), run_fields(b));
  ASSERT_EQ(a.interruptions.size(), b.interruptions.size());
  for (size_t i = 0; i < a.interruptions.size(); ++i) {
    const InterruptionRecord& p = a.interruptions[i];
    const InterruptionRecord& q = b.interruptions[i];
    EXPECT_EQ(p.time_s, q.time_s) << i;
    EXPECT_EQ(p.node, q.node) << i;
    EXPECT_EQ(p.cause, q.cause) << i;
    EXPECT_EQ(p.planned, q.planned) << i;
    EXPECT_EQ(p.lost_work_s, q.lost_work_s) << i;
    EXPECT_EQ(p.downtime_s, q.downtime_s) << i;
    EXPECT_EQ(p.dp_after, q.dp_after) << i;
  }
  ASSERT_EQ(a.checkpoints.size(), b.checkpoints.size());
  for (size_t i = 0; i < a.checkpoints.size(); ++i) {
    const CheckpointRecord& p = a.checkpoints[i];
    const CheckpointRecord& q = b.checkpoints[i];
    EXPECT_EQ(p.start_s, q.start_s) << i;
    EXPECT_EQ(p.end_s, q.end_s) << i;
    EXPECT_EQ(p.steps, q.steps) << i;
    EXPECT_EQ(p.bytes, q.bytes) << i;
    EXPECT_EQ(p.committed, q.committed) << i;
    EXPECT_EQ(p.async, q.async) << i;
  }
}

/// Every field equal (exactly: the trace stores doubles as doubles); sim_wall_s, the one
/// wall-clock value, only when `with_wall_time`.
inline void expect_equal_traces(const TraceContents& a, const TraceContents& b, bool with_wall_time) {
  EXPECT_EQ(a.metadata.schema_version, b.metadata.schema_version);
  EXPECT_EQ(a.metadata.trainsim_version, b.metadata.trainsim_version);
  EXPECT_EQ(a.metadata.simgrid_version, b.metadata.simgrid_version);
  EXPECT_EQ(a.metadata.hdf5_version, b.metadata.hdf5_version);
  EXPECT_EQ(a.metadata.scenario_path, b.metadata.scenario_path);
  EXPECT_EQ(a.metadata.scenario_text, b.metadata.scenario_text);
  EXPECT_EQ(a.metadata.scenario_overrides, b.metadata.scenario_overrides);
  EXPECT_EQ(a.metadata.scenario_resolved, b.metadata.scenario_resolved);
  EXPECT_EQ(a.metadata.seed, b.metadata.seed);
  EXPECT_EQ(a.metadata.simulated_gpus, b.metadata.simulated_gpus);
  EXPECT_EQ(a.metadata.reduce_symmetry, b.metadata.reduce_symmetry);
  EXPECT_EQ(a.level, b.level);

  const StepResult& x = a.summary;
  const StepResult& y = b.summary;
  EXPECT_EQ(x.step_time_s, y.step_time_s);
  EXPECT_EQ(x.gpus, y.gpus);
  EXPECT_EQ(x.global_batch_samples, y.global_batch_samples);
  EXPECT_EQ(x.tokens_per_step, y.tokens_per_step);
  EXPECT_EQ(x.tokens_per_s, y.tokens_per_s);
  EXPECT_EQ(x.tokens_per_s_per_gpu, y.tokens_per_s_per_gpu);
  EXPECT_EQ(x.model_tflops_per_gpu, y.model_tflops_per_gpu);
  EXPECT_EQ(x.hardware_tflops_per_gpu, y.hardware_tflops_per_gpu);
  EXPECT_EQ(x.mfu, y.mfu);
  EXPECT_EQ(x.hfu, y.hfu);
  EXPECT_EQ(x.bubble_fraction, y.bubble_fraction);
  EXPECT_EQ(x.collective_fraction, y.collective_fraction);
  EXPECT_EQ(x.exposed_comm_fraction, y.exposed_comm_fraction);
  EXPECT_EQ(x.breakdown_s.data, y.breakdown_s.data);
  EXPECT_EQ(x.breakdown_s.forward, y.breakdown_s.forward);
  EXPECT_EQ(x.breakdown_s.backward, y.breakdown_s.backward);
  EXPECT_EQ(x.breakdown_s.recompute, y.breakdown_s.recompute);
  EXPECT_EQ(x.breakdown_s.optimizer, y.breakdown_s.optimizer);
  EXPECT_EQ(x.breakdown_s.tp_comm, y.breakdown_s.tp_comm);
  EXPECT_EQ(x.breakdown_s.pp_comm, y.breakdown_s.pp_comm);
  EXPECT_EQ(x.breakdown_s.dp_comm, y.breakdown_s.dp_comm);
  EXPECT_EQ(x.breakdown_s.zero_comm, y.breakdown_s.zero_comm);
  EXPECT_EQ(x.breakdown_s.ep_comm, y.breakdown_s.ep_comm);
  EXPECT_EQ(x.breakdown_s.cp_comm, y.breakdown_s.cp_comm);
  EXPECT_EQ(x.breakdown_s.idle, y.breakdown_s.idle);
  EXPECT_EQ(x.comm_bytes_per_gpu.tp, y.comm_bytes_per_gpu.tp);
  EXPECT_EQ(x.comm_bytes_per_gpu.pp, y.comm_bytes_per_gpu.pp);
  EXPECT_EQ(x.comm_bytes_per_gpu.dp, y.comm_bytes_per_gpu.dp);
  EXPECT_EQ(x.comm_bytes_per_gpu.zero, y.comm_bytes_per_gpu.zero);
  EXPECT_EQ(x.comm_bytes_per_gpu.ep, y.comm_bytes_per_gpu.ep);
  EXPECT_EQ(x.comm_bytes_per_gpu.cp, y.comm_bytes_per_gpu.cp);
  EXPECT_EQ(x.peak_memory_bytes, y.peak_memory_bytes);
  EXPECT_EQ(x.energy_per_step_j, y.energy_per_step_j);
  EXPECT_EQ(x.energy_per_token_j, y.energy_per_token_j);
  EXPECT_EQ(x.avg_power_w, y.avg_power_w);
  EXPECT_EQ(x.dp_reductions, y.dp_reductions);
  EXPECT_EQ(x.inflight_microbatches, y.inflight_microbatches);
  EXPECT_EQ(x.steps, y.steps);
  if (with_wall_time) {
    EXPECT_EQ(x.sim_wall_s, y.sim_wall_s);
  }
  EXPECT_EQ(a.compute_model, b.compute_model);
  EXPECT_EQ(a.model_name, b.model_name);
  ASSERT_EQ(a.verdict.has_value(), b.verdict.has_value());
  if (a.verdict) {
    EXPECT_EQ(a.verdict->fits, b.verdict->fits);
    EXPECT_EQ(a.verdict->capacity_bytes, b.verdict->capacity_bytes);
    EXPECT_EQ(a.verdict->headroom_bytes, b.verdict->headroom_bytes);
    EXPECT_EQ(a.verdict->validation_family, b.verdict->validation_family);
    EXPECT_EQ(a.verdict->caveats, b.verdict->caveats);
  }

  ASSERT_EQ(a.steps.size(), b.steps.size());
  for (size_t i = 0; i < a.steps.size(); ++i) {
    EXPECT_EQ(a.steps[i].step, b.steps[i].step);
    EXPECT_EQ(a.steps[i].start_s, b.steps[i].start_s);
    EXPECT_EQ(a.steps[i].end_s, b.steps[i].end_s);
    EXPECT_EQ(a.steps[i].tokens, b.steps[i].tokens);
    EXPECT_EQ(a.steps[i].samples, b.steps[i].samples);
  }
  ASSERT_EQ(a.events.size(), b.events.size());
  for (size_t i = 0; i < a.events.size(); ++i) {
    const TraceEvent& e = a.events[i];
    const TraceEvent& f = b.events[i];
    EXPECT_EQ(e.step, f.step);
    EXPECT_EQ(e.rank, f.rank);
    EXPECT_EQ(e.stage, f.stage);
    EXPECT_EQ(e.replica, f.replica);
    EXPECT_EQ(e.stream, f.stream);
    EXPECT_EQ(e.kind, f.kind);
    EXPECT_EQ(e.layer, f.layer);
    EXPECT_EQ(e.microbatch, f.microbatch);
    EXPECT_EQ(e.start_s, f.start_s);
    EXPECT_EQ(e.end_s, f.end_s);
    EXPECT_EQ(e.bytes, f.bytes);
    EXPECT_EQ(e.flops, f.flops);
    EXPECT_EQ(e.count, f.count);
  }
  EXPECT_EQ(a.events_rule, b.events_rule);
  EXPECT_EQ(a.events_observed, b.events_observed);
  EXPECT_EQ(a.max_events, b.max_events);

  ASSERT_EQ(a.memory.size(), b.memory.size());
  for (size_t i = 0; i < a.memory.size(); ++i) {
    const StageMemory& m = a.memory[i];
    const StageMemory& n = b.memory[i];
    EXPECT_EQ(m.stage, n.stage);
    EXPECT_EQ(m.layers, n.layers);
    EXPECT_EQ(m.parameters_per_gpu, n.parameters_per_gpu);
    EXPECT_EQ(m.inflight_microbatches, n.inflight_microbatches);
    EXPECT_EQ(m.bytes.weights, n.bytes.weights);
    EXPECT_EQ(m.bytes.gradients, n.bytes.gradients);
    EXPECT_EQ(m.bytes.optimizer_states, n.bytes.optimizer_states);
    EXPECT_EQ(m.bytes.activations, n.bytes.activations);
    EXPECT_EQ(m.bytes.comm_buffers, n.bytes.comm_buffers);
    EXPECT_EQ(m.bytes.framework, n.bytes.framework);
    EXPECT_EQ(m.bytes.fragmentation, n.bytes.fragmentation);
    EXPECT_EQ(m.offloaded_bytes, n.offloaded_bytes);
    EXPECT_EQ(m.capacity_bytes, n.capacity_bytes);
  }

  ASSERT_EQ(a.links.size(), b.links.size());
  for (size_t i = 0; i < a.links.size(); ++i) {
    EXPECT_EQ(a.links[i].link, b.links[i].link);
    EXPECT_EQ(a.links[i].link_class, b.links[i].link_class);
    EXPECT_EQ(a.links[i].time_s, b.links[i].time_s);
    EXPECT_EQ(a.links[i].utilization, b.links[i].utilization);
  }

  ASSERT_EQ(a.run.has_value(), b.run.has_value());
  if (a.run) expect_equal_runs(*a.run, *b.run);
}

}  // namespace trainsim::test
