#pragma once
// Writes a simulated step as PyTorch profiler (Kineto) traces, one JSON file per simulated
// rank, as Holistic Trace Analysis reads a job's trace folder (`trainsim run --kineto-out DIR`;
// issue 58). What HTA reads, at facebookresearch/HolisticTraceAnalysis@f4d0062c:
// - hta/common/trace_file.py (create_rank_to_trace_dict): each `.json`/`.gz` file of the folder
//   is one rank, the first line matching `"rank":\s+(\d+)` names it: `distributedInfo` is
//   written on its own line, before any event, with a space after each colon;
// - hta/common/trace_parser.py: the `traceEvents` with `ts`, `dur`, `name`, `cat`, `pid`,
//   `tid` (ParserConfig.DEFAULT_MIN_REQUIRED_COLS), the args it keeps under their raw names
//   (hta/configs/event_args_formats/event_args_1.0.0.yaml: `stream`, `device`, `correlation`,
//   `External id`, `bytes` as integers); `distributedInfo.backend` (infer_gpu_type) and a
//   `cudaLaunchKernel` name, which make it an NVIDIA GPU trace;
// - hta/common/types.py: a GPU event is one whose `stream` is set (>= 0); its kind is read
//   from its name: communication when it starts with `nccl`, memory when it starts with
//   `Memcpy`/`Memset`, computation otherwise (Communicate/Memory/ComputeKernelGroupingPattern);
// - hta/common/trace.py (add_iteration, _filter_irrelevant_gpu_kernels): a GPU event belongs to
//   the `ProfilerStep#N` annotation its launch (same `correlation`) ran in; with two steps or
//   more, HTA keeps the events launched before the last step began, as it does for a real trace.
//
// The simulation records activities (a pass of a model chunk, a collective, a pipeline
// transfer), not kernels: each is one GPU event named by its kind, on the stream trainsim runs
// it on (pid = the GPU's index in its node, tid = a fixed CUDA stream number per trainsim
// stream), launched by a `cudaLaunchKernel` (`cudaMemcpyAsync` for copies) of zero duration at
// its start on the host thread, since the host is not simulated. A wait for input data is a
// host annotation (`data_wait`): the GPU is idle then, as it is in a profile. The ranks written
// are the ranks whose activities were recorded (one data-parallel replica unless `--full`).

#include <string>
#include <vector>

#include "sim/trace/trace_contents.hpp"

namespace trainsim {

/// What each file says of the job, beside its rank's events.
struct KinetoJob {
  int world_size = 1;     ///< GPUs in the job (distributedInfo.world_size)
  int gpus_per_node = 1;  ///< maps a rank to its device index (pid)
  std::string gpu_name;   ///< deviceProperties[0].name
  double gpu_memory_bytes = 0;
};

/// The ranks that have events, ascending: one file each.
std::vector<int> kineto_ranks(const std::vector<TraceEvent>& events);

/// The file of `rank`: `rank-<R>.pt.trace.json` (HTA takes any `.json` name).
std::string kineto_file_name(int rank);

/// The name HTA classifies an activity by: `ncclDevKernel_<Op>(trainsim <kind>)` for a
/// collective or transfer, `Memcpy DtoH (Device -> Pinned)`/`Memcpy HtoD (Pinned -> Device)`
/// for an offload copy, the kind itself for compute.
std::string kineto_event_name(const TraceEvent& e, bool after_forward);

/// `rank`'s trace as Kineto JSON text: its events of `c.events`, its steps of `c.steps`.
std::string kineto_trace_json(int rank, const TraceContents& c, const KinetoJob& job);

/// Writes every rank's file into `dir` (sim/core/new_output_folder.hpp: created, or empty) and
/// returns how many. Throws OutputError.
int write_kineto_traces(const std::string& dir, const TraceContents& c, const KinetoJob& job);

}  // namespace trainsim
