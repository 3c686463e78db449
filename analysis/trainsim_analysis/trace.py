"""Reading a trace: root attributes, /summary, /steps, /events, /memory, /links, and the run-level
simulation's /run, /failures, /checkpoints (schema 1.2) as pandas objects.

Needs Debian's python3-h5py and python3-pandas. Times are simulated seconds, memory in bytes.
"""

import configparser
import functools
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
    "tp_comm", "pp_comm", "dp_comm", "zero_comm", "ep_comm", "cp_comm", "offload", "idle",
]


#: the root attribute `source` of a replayed Chakra trace (schema 1.5)
REPLAY_SOURCE = "trainsim replay"

#: a replay's breakdown per GPU (replay_per_rank), as `trainsim replay` prints it
REPLAY_BREAKDOWN = ["compute", "exposed_comm", "idle"]

#: what /summary cannot say of a replayed trace (no model, batch or schedule): its NaN metrics in words
NOT_APPLICABLE_TO_REPLAY = "not applicable to a replayed trace (it carries no model, batch or pipeline schedule)"

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
    def is_replay(self) -> bool:
        """A replayed Chakra trace (`trainsim replay --trace`): /summary has its time, GPUs and exposed
        communication only (the other metrics NaN), every rank is stage 0 of replica 0."""
        return self.attrs.get("source") == REPLAY_SOURCE

    @property
    def breakdown(self) -> pd.Series:
        """Seconds per GPU and step by category (sums to the step time). A replay's /summary has no
        breakdown (NaN): its categories are then REPLAY_BREAKDOWN, the mean over ranks of
        replay_per_rank(), as `trainsim replay` prints them."""
        if self.is_replay:
            per_rank = replay_per_rank(self)
            return pd.Series({c: float(per_rank[f"{c}_s"].mean()) for c in REPLAY_BREAKDOWN}, name=self.label)
        cats = breakdown_categories(self.summary)
        return pd.Series({c: float(self.summary[f"breakdown_{c}_s"]) for c in cats}, name=self.label)

    @property
    def scenario(self) -> Dict[str, str]:
        """The resolved scenario (root attribute `scenario_resolved`) as {"section.key": value};
        empty for a trace without it."""
        return resolved_scenario(self.attrs.get("scenario_resolved", ""))

    @property
    def layout(self) -> Dict[str, object]:
        """The parallel layout: gpus, tp, pp, dp, cp, ep (int), schedule (str), virtual_stages
        (int), from the resolved scenario; only gpus for a trace without it."""
        out: Dict[str, object] = {"gpus": int(self.summary["gpus"])}
        scenario = self.scenario
        for key in ("tp", "pp", "dp", "cp", "ep", "virtual_stages"):
            if f"parallel.{key}" in scenario:
                out[key] = int(scenario[f"parallel.{key}"])
        if "parallel.schedule" in scenario:
            out["schedule"] = scenario["parallel.schedule"]
        return out

    @property
    def label(self) -> str:
        """GPU count and layout: "8 GPUs, tp 2 pp 2 dp 2, 1f1b" (cp and ep when above 1, the
        model chunks per stage of an interleaved schedule: "interleaved x2")."""
        return layout_label(self.layout)


def resolved_scenario(text: str) -> Dict[str, str]:
    """A resolved scenario (INI, as in the root attribute `scenario_resolved`) as {"section.key": value};
    empty when the text is not INI."""
    return dict(_parse_scenario(text or ""))


@functools.lru_cache(maxsize=64)
def _parse_scenario(text: str):
    parser = configparser.ConfigParser(interpolation=None, strict=False, comment_prefixes=("#", ";"))
    parser.optionxform = str  # keys as written
    try:
        parser.read_string(text)
    except configparser.Error:
        return ()
    return tuple((f"{section}.{key}", value) for section in parser.sections() for key, value in parser[section].items())


def layout_label(layout: Dict[str, object], sep: str = ", ") -> str:
    """`Trace.layout` in words: "8 GPUs, tp 2 pp 2 dp 2, 1f1b"; `sep` between the three parts."""
    parts = [f"{layout['gpus']} GPUs"]
    axes = [f"{k} {layout[k]}" for k in ("tp", "pp", "dp") if k in layout]
    axes += [f"{k} {layout[k]}" for k in ("cp", "ep") if int(layout.get(k, 1)) > 1]
    if axes:
        parts.append(" ".join(axes))
    if "schedule" in layout:
        chunks = int(layout.get("virtual_stages", 1))
        parts.append(f"{layout['schedule']} x{chunks}" if chunks > 1 else str(layout["schedule"]))
    return sep.join(parts)


def distinct_labels(traces: Iterable["Trace"], sep: str = ", ") -> List[str]:
    """One label per trace (layout_label), made distinct: traces of one layout are told apart by the
    resolved scenario keys in which they differ ("cluster.fabric=rail"), else by file name."""
    traces = list(traces)
    labels = [layout_label(t.layout, sep) for t in traces]
    for label in set(labels):
        same = [i for i, x in enumerate(labels) if x == label]
        if len(same) < 2:
            continue
        scenarios = [traces[i].scenario for i in same]
        keys = sorted({k for sc in scenarios for k in sc})
        differing = [k for k in keys if len({sc.get(k) for sc in scenarios}) > 1]
        for i, sc in zip(same, scenarios):
            extra = " ".join(f"{k.split('.', 1)[1]}={sc.get(k, '-')}" for k in differing[:3])
            labels[i] = f"{label}{sep}{extra}" if extra else label
        if len({labels[i] for i in same}) < len(same):  # one scenario: the file names, else the order
            names = [Path(traces[i].path).name for i in same]
            unique = len(set(names)) == len(names)
            for n, i in enumerate(same):
                labels[i] = f"{labels[i]}{sep}{names[n] if unique else f'trace {i + 1}'}"
    return labels


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


def _union_s(intervals) -> float:
    """Seconds covered by a set of (start, end) intervals."""
    total, start, end = 0.0, None, None
    for s, e in sorted(intervals):
        if end is None or s > end:
            if end is not None:
                total += end - start
            start, end = s, e
        else:
            end = max(end, e)
    return total + (end - start if end is not None else 0.0)


def _sends_block(trace: Trace) -> bool:
    """Whether a pipeline stage waits for its own sends (`parallel.pp_comm_overlap`: false, or auto
    with a schedule other than interleaved: ParallelSpec::pp_sends_overlap)."""
    scenario = trace.scenario
    overlap = scenario.get("parallel.pp_comm_overlap", "auto")
    if overlap == "auto":
        return scenario.get("parallel.schedule", "1f1b") != "interleaved"
    return overlap == "false"


def busy_intervals(trace: Trace, events: pd.DataFrame) -> pd.DataFrame:
    """What keeps each stage's GPU from being idle in `events` (one step of one replica), as
    /summary's breakdown counts it: columns stage, stream, kind, start_s, end_s. These are the
    events, except that a gradient reduction (`dp_reduce`) counts only from the stage's last
    compute pass before the optimizer (it overlaps the backward passes; the wait after them is
    dp_comm, while one running as the GPU waits on the pipeline is bubble), and, where a stage waits
    for its own sends (`_sends_block`), each pipeline transfer is also the sender's (stream
    `pp_comm`, kind `pp_send`): the sender is found from the pass that received it (a forward
    comes from the stage before, anything else from the stage after)."""
    pp = int(trace.layout.get("pp", events["stage"].max() + 1 if len(events) else 1))
    parts = []
    for stage, g in events.groupby("stage"):
        passes = g[(g["stream"] == "compute") & (g["kind"] != "optimizer")]
        last_pass = passes["end_s"].max() if len(passes) else -np.inf
        g = g[["stage", "stream", "kind", "start_s", "end_s"]].copy()
        reduce = g["kind"] == "dp_reduce"
        g.loc[reduce, "start_s"] = np.maximum(g.loc[reduce, "start_s"], last_pass)
        parts.append(g[g["end_s"] > g["start_s"]])
    if _sends_block(trace):
        compute = events[events["stream"] == "compute"]
        passes = {key: g.sort_values("start_s") for key, g in compute.groupby(["stage", "layer", "microbatch"])}
        sends = []
        for r in events[events["kind"] == "pp_transfer"].itertuples():
            received = passes.get((r.stage, r.layer, r.microbatch))
            after = received[received["start_s"] >= r.end_s - 1e-12] if received is not None else None
            if after is None or after.empty:
                continue
            sender = (r.stage - 1) % pp if after["kind"].iloc[0] == "forward" else (r.stage + 1) % pp
            sends.append((sender, "pp_comm", "pp_send", r.start_s, r.end_s))
        parts.append(pd.DataFrame(sends, columns=["stage", "stream", "kind", "start_s", "end_s"]))
    parts = [x for x in parts if len(x)]
    if not parts:
        return pd.DataFrame(columns=["stage", "stream", "kind", "start_s", "end_s"])
    return pd.concat(parts, ignore_index=True).sort_values(["stage", "start_s"]).reset_index(drop=True)


def _merged(intervals) -> List[tuple]:
    """(start, end) intervals merged where they overlap or touch, in order."""
    out = []
    for s, e in sorted(intervals):
        if out and s <= out[-1][1]:
            out[-1] = (out[-1][0], max(out[-1][1], e))
        else:
            out.append((s, e))
    return out


def _covered_outside(a, b) -> float:
    """Seconds of the union of `a` outside the union of `b` (both (start, end) intervals)."""
    a, b = _merged(a), _merged(b)
    total, k = 0.0, 0
    for s, e in a:
        total += e - s
        while k < len(b) and b[k][1] <= s:
            k += 1
        j = k
        while j < len(b) and b[j][0] < e:
            total -= min(e, b[j][1]) - max(s, b[j][0])
            j += 1
    return total


def replay_per_rank(trace: Trace) -> pd.DataFrame:
    """A replayed trace's time per rank, as `trainsim replay --json` counts it (`per_rank`):
    compute_s (its kernels), exposed_comm_s (its collectives and sends while it computes nothing),
    idle_s (the rest of the replay: waiting on other ranks, e.g. a pipeline stage on the one before;
    never below 0), step_s (the replay's time). Raises ValueError for a trace that is not a replay,
    or whose events were capped (`events_observed` above the rows)."""
    if not trace.is_replay:
        raise ValueError(f"{trace.path}: not a replayed trace (source {trace.attrs.get('source')!r})")
    e = trace.events
    observed = int(trace.events_attrs.get("events_observed", len(e)))
    if observed > len(e):
        raise ValueError(f"{trace.path}: {observed - len(e)} of the replay's {observed} nodes were left out "
                         f"({trace.events_attrs.get('rule')}); the time per rank needs every one")
    step_s = float(trace.summary["step_time_s"])
    rows = []
    for rank, g in e.groupby("rank"):
        compute = g[g["stream"] == "compute"]
        comm = g[g["stream"] != "compute"]
        compute_s = float(compute["duration_s"].sum())
        exposed = _covered_outside(zip(comm["start_s"], comm["end_s"]), zip(compute["start_s"], compute["end_s"]))
        rows.append({"rank": int(rank), "step_s": step_s, "compute_s": compute_s, "exposed_comm_s": exposed,
                     "idle_s": max(0.0, step_s - compute_s - exposed)})
    return pd.DataFrame(rows, columns=["rank", "step_s", "compute_s", "exposed_comm_s", "idle_s"])


def _replay_bubble(trace: Trace) -> pd.DataFrame:
    """bubble_per_stage() of a replay: one row per rank (a replay has no stages: each is stage 0)."""
    r = replay_per_rank(trace)
    busy = r["compute_s"] + r["exposed_comm_s"]
    return pd.DataFrame({
        "step": 0, "replica": 0, "stage": 0, "rank": r["rank"], "step_s": r["step_s"], "compute_s": r["compute_s"],
        "comm_s": r["exposed_comm_s"], "busy_s": busy, "bubble_s": r["idle_s"],
        "bubble_fraction": (r["idle_s"] / r["step_s"]).where(r["step_s"] > 0, 0.0),
    })


def bubble_per_stage(trace: Trace, replica: Optional[int] = None) -> pd.DataFrame:
    """The pipeline bubble of each simulated GPU (one per pipeline stage and replica: every replica
    in the trace, or only `replica`), step by step, as /summary's `bubble_fraction` counts it
    (breakdown `idle`): the time the GPU waits on pipeline dependencies, i.e. the step's length
    less the time it is busy. Busy is the union of busy_intervals(): compute, blocking TP
    collectives, data waits, the pipeline transfers it waits for (received, and sent where sends
    block), the gradient reductions after its last backward pass. So TP communication is not
    bubble, and the mean over stages, replicas and steps, over the step time, is /summary's
    `bubble_fraction` (to a fraction of a percent: communication that runs while the GPU waits on
    the pipeline, such as a transfer received early, counts as busy here).

    Columns: step, replica, stage, rank, step_s, compute_s (sum of compute passes), comm_s (busy
    outside compute), busy_s, bubble_s, bubble_fraction (of step_s). Needs /events at level
    `events` with the step's rows not aggregated (count 1); raises ValueError otherwise.

    A replayed trace has no pipeline schedule (its /summary's bubble_fraction is NaN): one row per
    rank (stage 0) from replay_per_rank(): comm_s its exposed communication, bubble_s its idle
    time, the time it waited on other ranks."""
    if trace.is_replay:
        return _replay_bubble(trace)
    e = trace.events
    if e.empty:
        raise ValueError(f"{trace.path}: /events is empty (trace level {trace.attrs.get('trace_level')})")
    if replica is not None:
        e = e[e["replica"] == replica]
        if e.empty:
            raise ValueError(f"{trace.path}: no events of replica {replica}")
    if not trace.steps.empty:
        spans = {int(r.step): (r.start_s, r.end_s) for r in trace.steps.itertuples()}
    else:
        spans = {int(k): (g["start_s"].min(), g["end_s"].max()) for k, g in e.groupby("step")}
    rows = []
    for (step, rep), events in e.groupby(["step", "replica"]):
        if (events["count"] > 1).any():
            raise ValueError(f"{trace.path}: step {step}'s events were aggregated ({trace.events_attrs.get('rule')}); "
                             "the bubble needs every activity")
        busy = busy_intervals(trace, events)
        start, end = spans.get(int(step), (events["start_s"].min(), events["end_s"].max()))
        step_s = end - start
        for stage, intervals in busy.groupby("stage"):
            rows_stage = events[events["stage"] == stage]
            covered = _union_s((max(s, start), min(f, end)) for s, f in zip(intervals["start_s"], intervals["end_s"])
                               if f > start and s < end)
            compute_s = float(rows_stage.loc[rows_stage["stream"] == "compute", "duration_s"].sum())
            rows.append({
                "step": int(step), "replica": int(rep), "stage": int(stage),
                "rank": int(rows_stage["rank"].iloc[0]) if len(rows_stage) else -1,
                "step_s": step_s, "compute_s": compute_s, "comm_s": covered - compute_s, "busy_s": covered,
                "bubble_s": step_s - covered, "bubble_fraction": (step_s - covered) / step_s if step_s > 0 else 0.0,
            })
    return pd.DataFrame(rows)


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
