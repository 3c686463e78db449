"""PyTorch profiler (Kineto) traces, real or simulated, and Holistic Trace Analysis' breakdowns.

A folder of Kineto traces, one file per rank (`trainsim run SCENARIO --kineto-out DIR` writes
one per simulated rank; a profiled job's `*.pt.trace.json[.gz]` are the same format), loads into
one DataFrame of GPU events per rank, and the same code computes, for either, what HTA computes
(facebookresearch/HolisticTraceAnalysis@f4d0062c; its definitions, restated here, not its code):

- temporal breakdown (hta/analyzers/breakdown_analysis.py, get_temporal_breakdown): over the span
  from the first GPU event's start to the last one's end (`kernel_time`), `idle_time` is the
  part no GPU event covers, `compute_time` the part computation kernels cover, and
  `non_compute_time` the rest (communication and memory kernels not under a computation one);
- communication/computation overlap (hta/analyzers/communication_analysis.py,
  get_comm_comp_overlap): the time both a communication and a computation kernel run, over the
  time communication kernels run (each kind's intervals merged first).

A GPU event is one whose `stream` arg is set (hta/common/trace_parser.py keeps `stream`; the
analyzers take `stream != -1`); its kind is read from its name (hta/common/types.py's grouping
patterns): communication for names starting `nccl`, `hip` or `hccl` or holding `ncclKernel`,
memory for `Memcpy`/`Memset`/`dma` (and their `hip` forms), computation for the rest but
synchronisation and launch names. Timestamps with a fraction of a microsecond are rounded as
HTA rounds them (start up, end down: trace_parser.py, round_down_time_stamps). With two
`ProfilerStep#N` annotations or more, only the GPU events launched (same `correlation`) before
the last step began are kept, as HTA's Trace does (trace.py, _filter_irrelevant_gpu_kernels).

From a shell, the summary of each folder or file side by side: kineto_summary.py.
Run on a trace written here and on a real profile: analysis/tests/test_kineto.py.
"""

import gzip
import json
import math
import re
from pathlib import Path
from typing import Dict, Optional, Union

import pandas as pd

#: HTA's kinds of GPU kernel (hta/utils/utils.py, KernelType)
COMMUNICATION, MEMORY, COMPUTATION, OTHER = "COMMUNICATION", "MEMORY", "COMPUTATION", "OTHER"

_COMM = re.compile(r"(^nccl.*)|(^hip)|(^hccl)|(.*ncclKernel.*)")
_MEMORY = re.compile(r"(^(hip)?Memcpy)|(^(hip)?Memset)|(^dma)")
_NOT_COMPUTE = re.compile(
    r"(^nccl)|(.*Memcpy)|(.*Memset)|(.*dma)|(^.*Sync)|(^Stream Wait Event)|(cuda.*LaunchKernel)|(^runFunction)"
    r"|(^hip)|(^job_exe)|(^packet)|(^pe_exe)|(^cpum_exe_subgraph)|(^hccl)|(^collective_subgraph_execution)")
_PROFILER_STEP = re.compile(r"^ProfilerStep#(\d+)")
#: how HTA finds a file's rank: the first line where this matches (hta/common/trace_file.py)
RANK_LINE = re.compile(r'"rank":\s+(\d+)')

TEMPORAL_COLUMNS = ["rank", "idle_time(us)", "compute_time(us)", "non_compute_time(us)", "kernel_time(us)",
                    "idle_time_pctg", "compute_time_pctg", "non_compute_time_pctg"]


def kernel_type(name: str) -> str:
    """COMMUNICATION, MEMORY, COMPUTATION or OTHER, by the kernel's name as HTA reads it."""
    if _COMM.match(name):
        return COMMUNICATION
    if _MEMORY.match(name):
        return MEMORY
    if not _NOT_COMPUTE.match(name):
        return COMPUTATION
    return OTHER


def _open_text(path: Path):
    return gzip.open(path, "rt") if path.name.endswith(".gz") else open(path, "r")


def trace_rank(path: Union[str, Path]) -> Optional[int]:
    """The rank HTA gives a file: the first line where RANK_LINE matches; None where none does
    (HTA then takes 0 and warns)."""
    with _open_text(Path(path)) as f:
        for line in f:
            m = RANK_LINE.search(line)
            if m:
                return int(m.group(1))
    return None


class KinetoTrace:
    """One rank's trace: `meta` (every top-level key but traceEvents), `events` (the complete
    events: name, cat, ts, dur, end in microseconds, stream and correlation, -1 when unset) and
    `gpu` (the GPU events HTA's breakdowns read, with `kernel_type`)."""

    def __init__(self, path: Union[str, Path]):
        self.path = Path(path)
        with _open_text(self.path) as f:
            data = json.load(f)
        if not isinstance(data, dict) or not isinstance(data.get("traceEvents"), list):
            raise ValueError(f"{self.path}: not a Kineto trace (no traceEvents list)")
        self.meta = {k: v for k, v in data.items() if k != "traceEvents"}
        #: HTA's rank; where its line rule finds none (compact JSON, no space after the colon, as
        #: in data/profiles' trimmed trace), distributedInfo.rank, else 0 as HTA
        self.rank = trace_rank(self.path)
        if self.rank is None:
            self.rank = _int((self.meta.get("distributedInfo") or {}).get("rank"))
            self.rank = max(self.rank, 0)
        rows = []
        for e in data["traceEvents"]:
            if e.get("ph") != "X" or "dur" not in e or "cat" not in e:
                continue
            args = e.get("args") or {}
            rows.append((e.get("name", ""), e["cat"], e["ts"], e["dur"], _int(args.get("stream")),
                         _int(args.get("correlation"))))
        events = pd.DataFrame(rows, columns=["name", "cat", "ts", "dur", "stream", "correlation"])
        if events.ts.dtype.kind == "f":  # fractions of a microsecond: HTA's rounding
            end = events.ts + events.dur
            events["ts"] = events.ts.map(math.ceil)
            events["dur"] = end.map(math.floor) - events.ts
        events["end"] = events.ts + events.dur
        self.events = events
        self.gpu = _gpu_events(events)


def _int(value) -> int:
    try:
        return int(value)
    except (TypeError, ValueError):
        return -1


def _gpu_events(events: pd.DataFrame) -> pd.DataFrame:
    gpu = events[events.stream.ne(-1)]
    steps = events[events.stream.eq(-1) & events.name.str.match(_PROFILER_STEP)]
    if len(steps) >= 2:  # keep what was launched before the last (possibly cut) step began
        launched = events[events.stream.eq(-1) & events.correlation.ne(-1) & events.ts.lt(steps.ts.max())]
        gpu = gpu[gpu.correlation.isin(set(launched.correlation))]
    gpu = gpu.copy()
    gpu["kernel_type"] = gpu.name.map(kernel_type)
    return gpu.reset_index(drop=True)


def load_kineto(path: Union[str, Path]) -> Dict[int, KinetoTrace]:
    """Every `.json`/`.gz` file of the folder `path`, by rank (HTA's TraceAnalysis(trace_dir=path)),
    or the one trace file `path` names."""
    path = Path(path)
    files = [path] if path.is_file() else sorted(p for p in path.iterdir() if p.name.endswith((".json", ".gz")))
    if not files:
        raise ValueError(f"{path}: no .json or .gz trace in it")
    traces = {}
    for path in files:
        t = KinetoTrace(path)
        traces[t.rank] = t
    return dict(sorted(traces.items()))


def merged_intervals(events: pd.DataFrame) -> pd.DataFrame:
    """The union of the events' [ts, end) intervals, as disjoint intervals sorted by start."""
    if events.empty:
        return pd.DataFrame({"ts": pd.Series(dtype=float), "end": pd.Series(dtype=float)})
    e = events[["ts", "end"]].sort_values("ts")
    group = (e.ts > e.end.shift().cummax()).cumsum()
    return e.groupby(group).agg(ts=("ts", "min"), end=("end", "max")).reset_index(drop=True)


def _covered(intervals: pd.DataFrame) -> float:
    return float((intervals.end - intervals.ts).sum())


def temporal_breakdown(traces: Dict[int, KinetoTrace]) -> pd.DataFrame:
    """Per rank: idle, compute and non-compute time in microseconds over the GPU events' span,
    and each as a percentage of it (HTA's get_temporal_breakdown columns)."""
    rows = []
    for rank, t in traces.items():
        if t.gpu.empty:
            raise ValueError(f"{t.path}: no GPU events (none has a 'stream' arg)")
        merged = merged_intervals(t.gpu)
        span = float(merged.end.iloc[-1] - merged.ts.iloc[0])
        idle = span - _covered(merged)
        compute = _covered(merged_intervals(t.gpu[t.gpu.kernel_type.eq(COMPUTATION)]))
        rows.append([rank, idle, compute, span - compute - idle, span])
    df = pd.DataFrame(rows, columns=TEMPORAL_COLUMNS[:5])
    for name in ["idle_time", "compute_time", "non_compute_time"]:
        df[name + "_pctg"] = (100 * df[name + "(us)"] / df["kernel_time(us)"]).round(2)
    return df


def comm_comp_overlap(traces: Dict[int, KinetoTrace]) -> pd.DataFrame:
    """Per rank: the share of communication kernel time during which computation also ran
    (HTA's get_comm_comp_overlap: comp_comm_overlap_ratio and _pctg); NaN without communication."""
    rows = []
    for rank, t in traces.items():
        comm = merged_intervals(t.gpu[t.gpu.kernel_type.eq(COMMUNICATION)])
        comp = merged_intervals(t.gpu[t.gpu.kernel_type.eq(COMPUTATION)])
        both = 0.0
        j = 0
        comp_ts, comp_end = comp.ts.tolist(), comp.end.tolist()
        for s, e in zip(comm.ts.tolist(), comm.end.tolist()):  # both lists are disjoint and sorted
            while j < len(comp_ts) and comp_end[j] <= s:
                j += 1
            k = j
            while k < len(comp_ts) and comp_ts[k] < e:
                both += min(e, comp_end[k]) - max(s, comp_ts[k])
                k += 1
        total = _covered(comm)
        rows.append([rank, both / total if total > 0 else float("nan")])
    df = pd.DataFrame(rows, columns=["rank", "comp_comm_overlap_ratio"])
    df["comp_comm_overlap_pctg"] = (100 * df.comp_comm_overlap_ratio).round(2)
    return df


def breakdown_summary(traces: Dict[int, KinetoTrace]) -> pd.DataFrame:
    """Per rank, in percent: idle, compute and non-compute time of the GPU events' span
    (temporal_breakdown) and the communication time computation overlapped (comm_comp_overlap)."""
    b = temporal_breakdown(traces)[["rank", "kernel_time(us)", "idle_time_pctg", "compute_time_pctg",
                                    "non_compute_time_pctg"]]
    return b.merge(comm_comp_overlap(traces)[["rank", "comp_comm_overlap_pctg"]], on="rank")

