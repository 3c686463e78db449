"""Reading a trace: root attributes, /summary, /steps, /events, /memory, /links, and the run-level
simulation's /run, /failures, /checkpoints (schema 1.2) as pandas objects.

Needs Debian's python3-h5py and python3-pandas. Times are simulated seconds, memory in bytes.
"""

from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Optional, Union

import h5py
import numpy as np
import pandas as pd

SCHEMA_MAJOR = 1

#: breakdown categories of /summary (attributes breakdown_<category>_s), in the order `trainsim run` prints them;
#: categories a trace has beyond these are added after them
BREAKDOWN = [
    "data", "forward", "backward", "recompute", "optimizer",
    "tp_comm", "pp_comm", "dp_comm", "zero_comm", "ep_comm", "cp_comm", "idle",
]


#: /run's status when a run-level simulation ran (schema 1.2)
RUN_SIMULATED = "simulated"

#: /failures and /checkpoints columns as loaded (0/1 fields as bool), also for traces without them
FAILURE_COLUMNS = {
    "time_s": "float64", "node": "int32", "cause": "object", "planned": "bool", "lost_work_s": "float64",
    "downtime_s": "float64", "dp_after": "int32",
}
CHECKPOINT_COLUMNS = {
    "start_s": "float64", "end_s": "float64", "steps": "int64", "bytes": "float64", "committed": "bool",
    "async": "bool",
}


def breakdown_categories(summary) -> list:
    """The breakdown categories present in a /summary, known ones first."""
    present = [k[len("breakdown_"):-len("_s")] for k in summary.index if k.startswith("breakdown_") and k.endswith("_s")]
    return [c for c in BREAKDOWN if c in present] + sorted(c for c in present if c not in BREAKDOWN)


def _text(value):
    if isinstance(value, bytes):
        return value.decode("utf-8")
    if isinstance(value, np.ndarray) and value.shape == ():
        return _text(value[()])
    if isinstance(value, np.generic):
        return value.item()
    return value


def _table(dataset) -> pd.DataFrame:
    """A compound dataset as a DataFrame; fixed-length strings decoded to str."""
    data = dataset[()]
    frame = pd.DataFrame({name: data[name] for name in data.dtype.names})
    for name in data.dtype.names:
        if data.dtype[name].kind == "S":
            frame[name] = frame[name].str.decode("utf-8")
    return frame


def _empty(columns: Dict[str, str]) -> pd.DataFrame:
    return pd.DataFrame({name: pd.Series(dtype=kind) for name, kind in columns.items()})


def _run_table(f, name: str, columns: Dict[str, str]) -> pd.DataFrame:
    """/failures or /checkpoints with its 0/1 fields as bool; an empty frame with the same columns
    for a trace older than schema 1.2 (where the name is a reserved, empty group)."""
    if not isinstance(f.get(name), h5py.Dataset):
        return _empty(columns)
    frame = _table(f[name])
    for column, kind in columns.items():
        if kind == "bool":
            frame[column] = frame[column].astype(bool)
    return frame


@dataclass
class Trace:
    """One trace file, loaded. `attrs` are the root attributes, `summary` the step's metrics.

    The run-level simulation (schema 1.2, scenarios with `[run] duration`): `run` holds /run's
    metrics (None when no run was simulated, or the trace is older), `run_status` says which,
    `failures` and `checkpoints` are its tables (empty when there is no run), with the derived
    columns `resumed_s` (time_s + downtime_s) and `duration_s` (end_s - start_s).
    """

    path: str
    attrs: Dict[str, object]
    summary: pd.Series
    steps: pd.DataFrame
    events: pd.DataFrame
    memory: pd.DataFrame
    links: pd.DataFrame
    events_attrs: Dict[str, object] = field(default_factory=dict)
    links_attrs: Dict[str, object] = field(default_factory=dict)
    run: Optional[pd.Series] = None
    run_status: str = "absent"
    failures: pd.DataFrame = field(default_factory=lambda: _empty(FAILURE_COLUMNS))
    checkpoints: pd.DataFrame = field(default_factory=lambda: _empty(CHECKPOINT_COLUMNS))

    @property
    def breakdown(self) -> pd.Series:
        """Seconds per GPU and step by category (sums to the step time)."""
        cats = breakdown_categories(self.summary)
        return pd.Series({c: float(self.summary[f"breakdown_{c}_s"]) for c in cats}, name=self.label)

    @property
    def label(self) -> str:
        return f"{int(self.summary['gpus'])} GPUs"


def load_trace(path: Union[str, Path]) -> Trace:
    """Reads a trace; raises ValueError when its schema's major version is not SCHEMA_MAJOR."""
    path = str(path)
    with h5py.File(path, "r") as f:
        attrs = {k: _text(v) for k, v in f.attrs.items()}
        major = int(str(attrs["schema_version"]).split(".")[0])
        if major != SCHEMA_MAJOR:
            raise ValueError(f"{path}: trace schema {attrs['schema_version']}, this package reads {SCHEMA_MAJOR}.x")
        summary = pd.Series({k: _text(v) for k, v in f["summary"].attrs.items()}, name=path)
        steps = _table(f["steps"])
        events = _table(f["events"])
        memory = _table(f["memory"])
        links = _table(f["links"]["utilization"]) if "utilization" in f["links"] else pd.DataFrame()
        events_attrs = {k: _text(v) for k, v in f["events"].attrs.items()}
        links_attrs = {k: _text(v) for k, v in f["links"].attrs.items()} if "links" in f else {}
        if "run" in f:
            run_attrs = {k: _text(v) for k, v in f["run"].attrs.items()}
            run_status = str(run_attrs.pop("status", "absent"))
        else:
            run_attrs, run_status = {}, f"absent (schema {attrs['schema_version']})"
        # object: integers stay integers (failures, steps_completed), as the file types them
        run = pd.Series(run_attrs, name=path, dtype=object) if run_status == RUN_SIMULATED else None
        failures = _run_table(f, "failures", FAILURE_COLUMNS)
        checkpoints = _run_table(f, "checkpoints", CHECKPOINT_COLUMNS)
    failures["resumed_s"] = failures["time_s"] + failures["downtime_s"]
    checkpoints["duration_s"] = checkpoints["end_s"] - checkpoints["start_s"]
    if not events.empty:
        events["duration_s"] = events["end_s"] - events["start_s"]
    if not steps.empty:
        steps["duration_s"] = steps["end_s"] - steps["start_s"]
    return Trace(path, attrs, summary, steps, events, memory, links, events_attrs, links_attrs, run, run_status,
                 failures, checkpoints)


def load_traces(paths: Iterable[Union[str, Path]]) -> List[Trace]:
    return [load_trace(p) for p in paths]


def scaling_table(traces: Iterable[Trace]) -> pd.DataFrame:
    """One row per trace: gpus, step_time_s, tokens_per_s, tokens_per_s_per_gpu, mfu, sorted by gpus."""
    rows = []
    for t in traces:
        s = t.summary
        rows.append(
            {
                "trace": t.path,
                "gpus": int(s["gpus"]),
                "step_time_s": float(s["step_time_s"]),
                "tokens_per_s": float(s["tokens_per_s"]),
                "tokens_per_s_per_gpu": float(s["tokens_per_s_per_gpu"]),
                "mfu": float(s["mfu"]),
            }
        )
    return pd.DataFrame(rows).sort_values("gpus").reset_index(drop=True)


def run_table(traces: Iterable[Trace]) -> pd.DataFrame:
    """One row per trace with a simulated run: trace, seed, then every /run metric
    (checkpoint_interval_s, effective_training_time_ratio, failures, ...), sorted by the
    checkpoint interval. Traces without a run are left out; none with one is an error."""
    traces = list(traces)
    rows = [{"trace": t.path, "seed": t.attrs.get("seed"), **t.run.to_dict()} for t in traces if t.run is not None]
    if not rows:
        raise ValueError(f"no simulated run ([run] duration > 0) in {[t.path for t in traces]}")
    return pd.DataFrame(rows).sort_values(["checkpoint_interval_s", "trace"]).reset_index(drop=True)


def run_phases(trace: Trace) -> pd.DataFrame:
    """What the job did over the run, as consecutive intervals (start_s, end_s, phase): phase is
    `training`, `checkpoint` (a synchronous write, committed), `checkpoint interrupted` or
    `downtime` (after an interruption: detection, waiting for nodes, restart, checkpoint read).
    Asynchronous checkpoints do not stop training, so they are not phases."""
    if trace.run is None:
        raise ValueError(f"{trace.path}: no run simulated ({trace.run_status})")
    end = float(trace.run["wall_time_s"])
    stops = [(r.time_s, min(end, r.resumed_s), "downtime") for r in trace.failures.itertuples()]
    sync = trace.checkpoints[~trace.checkpoints["async"]]
    stops += [(r.start_s, r.end_s, "checkpoint" if r.committed else "checkpoint interrupted")
              for r in sync.itertuples()]
    rows, at = [], 0.0
    for start, stop, phase in sorted(stops):
        start = max(start, at)  # a stop that begins inside the previous one continues it
        if stop <= start:
            continue
        if start > at:
            rows.append((at, start, "training"))
        rows.append((start, stop, phase))
        at = stop
    if end > at:
        rows.append((at, end, "training"))
    return pd.DataFrame(rows, columns=["start_s", "end_s", "phase"])


def run_progress(trace: Trace) -> pd.DataFrame:
    """Useful training over the run: (time_s, useful_s) points of a piecewise-linear curve that
    rises with training, stays flat while the job is stopped, and drops by each interruption's
    lost_work_s (training since the last committed checkpoint, redone). It ends near /run's
    useful_time_s (which counts whole steps only)."""
    phases = run_phases(trace)
    drops = sorted(zip(trace.failures["time_s"], trace.failures["lost_work_s"]))
    points, useful, next_drop = [(0.0, 0.0)], 0.0, 0
    for r in phases.itertuples():
        rate = 1.0 if r.phase == "training" else 0.0
        at = r.start_s
        while next_drop < len(drops) and drops[next_drop][0] <= r.end_s:
            when, lost = max(drops[next_drop][0], at), drops[next_drop][1]
            useful += rate * (when - at)
            points.append((when, useful))
            useful -= lost
            points.append((when, useful))
            at, next_drop = when, next_drop + 1
        useful += rate * (r.end_s - at)
        points.append((r.end_s, useful))
    return pd.DataFrame(points, columns=["time_s", "useful_s"])
