#pragma once
// A simulated step written as Chakra execution traces (`trainsim run --chakra-out DIR`): what
// every GPU did, one trace per rank, with the dependencies the schedule imposed.
//
// The step reports its activities per simulated GPU (step_observer.hpp): each pipeline
// stage's first data-parallel replica, tensor-parallel rank 0. Every other GPU of the stage
// does the same on its own groups (that is what the symmetry reduction rests on, and what
// --full checks), so each rank's trace is its stage's records, with the groups and peers
// resolved for that rank. The dependencies come from the simulated timeline:
// - compute (passes, the optimizer, data and offload waits) runs in order on one stream, each
//   record split where a collective or a pipeline send was issued inside it;
// - a collective or send depends on the compute that ended when it was issued; the first
//   compute that starts once it has ended depends on it (the optimizer, for gradient
//   reductions); the GEMM a TP collective is overlapped with is a compute node beside it;
// - a receive has no predecessor; the compute that starts once its data arrived depends on it.
// Replayed on the same cluster with recorded durations, this reproduces the step
// (tests/workload/export_test.cpp).

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "models/parallel_spec.hpp"
#include "sim/step/step_observer.hpp"
#include "sim/workload/chakra_node.hpp"
#include "sim/workload/comm_groups.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim::workload {

/// Records what each pipeline stage's first replica did (an observer of the step).
class StepRecording : public StepObserver {
 public:
  void on_activity(const ActivityRecord& record) override;
  void on_step(int /*step*/, double /*start_s*/, double /*end_s*/) override {}
  /// Stage -> its records, in the order the simulation reported them.
  const std::map<int, std::vector<ActivityRecord>>& stages() const { return stages_; }

 private:
  std::map<int, std::vector<ActivityRecord>> stages_;
};

/// One node of an exported trace, as it will be written.
struct ExportNode {
  std::uint64_t id = 0;
  std::string name;
  NodeKind kind = NodeKind::compute;  ///< compute, collective, send or recv
  std::uint64_t duration_us = 0;
  double flops = 0;      ///< num_ops
  double hbm_bytes = 0;  ///< tensor_size: the HBM bytes its kernels read and write
  std::vector<std::uint64_t> deps;
  CommType comm_type = CommType::all_reduce;
  /// comm_size as ASTRA-sim's feeder reads it: an all-gather's per-rank input, otherwise the
  /// size nccl-tests reports (the reduce-scatter's whole input).
  std::int64_t comm_bytes = 0;
  int pg = 0;              ///< pg_name: the group's number (comm_groups.hpp)
  std::string pg_desc;     ///< "tp@0", "dp@3", "edp.shard@16": the group's kind and its lowest rank
  std::int32_t peer = -1;  ///< send: comm_dst; receive: comm_src
  std::int32_t tag = 0;    ///< comm_tag
};

/// Every rank's nodes from one recorded step.
class StepExport {
 public:
  /// `blocking_sends`: the sender waits for its pipeline sends (no overlapped p2p).
  StepExport(const StepRecording& recording, const RankMapping& mapping, const ParallelSpec& parallel,
             bool blocking_sends);

  /// The nodes of `rank`'s trace, in file order.
  std::vector<ExportNode> rank_nodes(int rank) const;

  /// Every process group the collectives of the world's ranks run on, numbered from 1 in the
  /// order of their readable names' kind, then lowest rank (the same whichever ranks are
  /// written).
  const std::vector<CommGroup>& comm_groups() const { return groups_; }

 private:
  /// A node of a stage's trace, its group and peer still relative to the rank.
  struct Template {
    ExportNode node;                ///< name, kind, duration, FLOPs, comm type and size
    std::vector<size_t> deps;       ///< indices into the stage's templates
    ActivityCollective collective;  ///< collective: the group, resolved per rank
    int peer_stage = -1;            ///< send, receive
    double order_s = 0;             ///< file order: by time, then `rank_in_time`
    int rank_in_time = 0;
  };

  std::vector<Template> build_stage(int stage, const std::vector<ActivityRecord>& records,
                                    const std::map<int, std::vector<ActivityRecord>>& all) const;
  /// Numbers every group of every rank's collectives (groups_, group_ids_).
  void number_groups();

  const RankMapping& mapping_;
  const ParallelSpec& parallel_;
  bool blocking_sends_;
  std::map<int, std::vector<Template>> stages_;  ///< stage -> its nodes, relative to the stage's ranks
  std::vector<CommGroup> groups_;                ///< group id - 1 -> the group
  std::map<std::string, int> group_ids_;         ///< pg_desc -> id
};

/// Parses --ranks ("0-7,12"): ascending, unique, each below `world`. Throws InputError
/// (option "--ranks").
std::vector<int> parse_rank_list(const std::string& text, int world);

/// `nodes` as the bytes of a rank's trace file: GlobalMetadata then the nodes, each
/// varint-length-delimited (ExportFolder writes them, export_folder.hpp).
std::string chakra_trace_bytes(const std::vector<ExportNode>& nodes, int rank, int world);

/// The file prefix of an export into `dir`: `<dir>/step`, whose traces are step.<rank>.et.
std::string export_prefix(const std::string& dir);

}  // namespace trainsim::workload
