#!/usr/bin/env python3
"""Host time per launched kernel, measured in PyTorch profiler (Kineto) traces.

trainsim's training.kernel_host_time (sim/step/host_bound_pass.hpp) is the host time a
framework spends per CUDA kernel it launches: when a stretch of kernels runs shorter on the
GPU than the host takes to launch them (small MoE expert GEMMs, their per-expert quantization,
the token permutations), the GPU waits for the host. This script measures it in real traces:

  launch API     the duration of each cudaLaunchKernel runtime call (the driver's share)
  launch interval the time from one kernel launch to the next on the same host thread: the
                 framework's whole per-kernel cost (Python, operator dispatch, launch), the
                 rate at which a host-bound thread feeds the GPU

  collective     with --collectives: the CPU time of each NCCL collective call, the
                 record_param_comms range (c10d's work, its NCCL enqueue) around an nccl:*
                 annotation: HostCost::collective_s (topologies/host_cost.hpp)

  accumulate     with --accumulate-grad: the CPU time of each autograd engine evaluation of a
                 parameter's AccumulateGrad node ("autograd::engine::evaluate_function:
                 torch::autograd::AccumulateGrad", its hooks inside), split by whether it
                 launched a kernel (an add into an existing .grad) or not (the incoming
                 gradient stolen as the new .grad): HostCost::weight_gradient_s

Medians over all launching threads. Inputs used for the default (models/README.md, "What a step pays"):
facebookresearch/HolisticTraceAnalysis @ f4d0062c382f42bd8a74838bcdad1916c7d5d2da, MIT license
(Copyright (c) Meta Platforms, Inc. and affiliates; notice in ../shared/data/profiles/README.md
beside the checkout, which also holds the A100 one as hta-a100-control.json.gz):
  tests/data/trace_diff/control/control.json.gz   (A100, 8 ranks, rank 3)
  tests/data/h100/h100_trace.json.gz               (H100)
  tests/data/vision_transformer/rank-0.json.gz     (a vision transformer)
Get them with
  git --git-dir=HolisticTraceAnalysis/.git show f4d0062c:<path> > <file>

Usage: host_launch_cost.py [--collectives | --accumulate-grad] TRACE.json[.gz] ...   (standard library only; deterministic)
"""

import gzip
import json
import statistics
import sys

LAUNCHES = ("cudaLaunchKernel", "cudaLaunchKernelExC", "cuLaunchKernel", "cuLaunchKernelEx")


def load(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        trace = json.load(f)
    return trace["traceEvents"] if isinstance(trace, dict) else trace


def measure(events):
    by_thread = {}
    for e in events:
        if e.get("ph") == "X" and e.get("name") in LAUNCHES:
            by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    durations, intervals = [], []
    for launches in by_thread.values():
        launches.sort(key=lambda e: e["ts"])
        durations += [float(e.get("dur", 0)) for e in launches]
        intervals += [float(b["ts"]) - float(a["ts"]) for a, b in zip(launches, launches[1:])]
    return durations, intervals


def collective_calls(events):
    """CPU microseconds of each record_param_comms range that holds an nccl:* annotation."""
    spans = [e for e in events if e.get("ph") == "X" and e.get("cat") in ("cpu_op", "user_annotation")]
    nccl = [e for e in spans if str(e.get("name", "")).startswith("nccl:")]
    calls = []
    for r in spans:
        if r.get("name") != "record_param_comms":
            continue
        begin, end = float(r["ts"]), float(r["ts"]) + float(r.get("dur", 0))
        if any(n.get("tid") == r.get("tid") and float(n["ts"]) >= begin and float(n["ts"]) + float(n.get("dur", 0)) <= end
               for n in nccl):
            calls.append(float(r.get("dur", 0)))
    return calls


def report_collectives(paths):
    calls = []
    for path in paths:
        calls += collective_calls(load(path))
    if len(calls) < 2:
        print("no NCCL collective calls")
        return
    q = statistics.quantiles(calls, n=4)
    print(f"{len(calls)} NCCL collective calls; c10d CPU time median {statistics.median(calls):.1f} us "
          f"(quartiles {q[0]:.1f} .. {q[2]:.1f})")


ACCUMULATE = "autograd::engine::evaluate_function: torch::autograd::AccumulateGrad"


def accumulate_grad_calls(events):
    """CPU microseconds of each AccumulateGrad evaluation, as (without a kernel, with one)."""
    by_thread = {}
    for e in events:
        if e.get("ph") == "X" and "ts" in e:
            by_thread.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    stolen, added = [], []
    for spans in by_thread.values():
        launches = sorted(float(e["ts"]) for e in spans if e.get("name") in LAUNCHES)
        for a in spans:
            if a.get("name") != ACCUMULATE:
                continue
            begin, end = float(a["ts"]), float(a["ts"]) + float(a.get("dur", 0))
            launched = any(begin <= t <= end for t in launches)
            (added if launched else stolen).append(float(a.get("dur", 0)))
    return stolen, added


def report_accumulate_grad(paths):
    stolen, added = [], []
    for path in paths:
        s, a = accumulate_grad_calls(load(path))
        stolen += s
        added += a
    for name, calls in (("without a kernel", stolen), ("with a kernel", added)):
        if len(calls) < 2:
            print(f"AccumulateGrad {name}: fewer than 2")
            continue
        q = statistics.quantiles(calls, n=4)
        print(f"AccumulateGrad {name}: {len(calls)} evaluations; CPU time median {statistics.median(calls):.1f} us "
              f"(quartiles {q[0]:.1f} .. {q[2]:.1f})")


def report(name, durations, intervals):
    q = statistics.quantiles(intervals, n=4)
    print(f"{name}: {len(durations)} launches; launch API median {statistics.median(durations):.1f} us; "
          f"launch interval median {statistics.median(intervals):.1f} us (quartiles {q[0]:.1f} .. {q[2]:.1f})")


def main(paths):
    all_durations, all_intervals = [], []
    for path in paths:
        durations, intervals = measure(load(path))
        if not intervals:
            print(f"{path}: no kernel launches")
            continue
        report(path, durations, intervals)
        all_durations += durations
        all_intervals += intervals
    if len(paths) > 1 and all_intervals:
        report("all traces", all_durations, all_intervals)


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    if sys.argv[1] == "--collectives":
        report_collectives(sys.argv[2:])
    elif sys.argv[1] == "--accumulate-grad":
        report_accumulate_grad(sys.argv[2:])
    else:
        main(sys.argv[1:])
