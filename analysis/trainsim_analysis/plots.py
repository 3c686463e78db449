"""Figures from loaded traces (matplotlib, Agg backend: no display needed)."""

from pathlib import Path
from typing import Iterable, Optional, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .layer import Layer  # noqa: E402
from .trace import BREAKDOWN, Trace, run_phases, run_progress  # noqa: E402

_KIND_COLORS = {
    "forward": "#4c72b0",
    "backward": "#dd8452",
    "weight": "#c44e52",
    "recompute": "#8172b3",
    "optimizer": "#55a868",
}
_CATEGORY_COLORS = dict(
    zip(
        BREAKDOWN,
        ["#937860", "#4c72b0", "#dd8452", "#8172b3", "#55a868", "#da8bc3", "#ccb974", "#64b5cd", "#8c613c",
         "#2ca02c", "#797979", "#c7c7c7"],
    )
)


def save_figure(fig, path: Union[str, Path]) -> Path:
    """Writes `fig` as PNG (creating the folder) and closes it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


def plot_step_breakdown(traces: Iterable[Trace], labels: Optional[Iterable[str]] = None):
    """Stacked bars: where a GPU's step time goes (seconds), one bar per trace."""
    traces = list(traces)
    frame = pd.DataFrame([t.breakdown for t in traces]).fillna(0.0)
    frame.index = list(labels) if labels is not None else [t.label for t in traces]
    fig, ax = plt.subplots(figsize=(max(4, 1.5 * len(frame) + 3), 4))
    bottom = pd.Series(0.0, index=frame.index)
    for category in frame.columns:
        ax.bar(frame.index, frame[category], bottom=bottom, label=category, color=_CATEGORY_COLORS.get(category))
        bottom += frame[category]
    ax.set_ylabel("seconds per step, per GPU")
    ax.set_title("Step breakdown")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    return fig


def plot_pipeline_timeline(trace: Trace, step: int = 0, replica: int = 0):
    """Gantt chart of compute per pipeline stage for one step: one bar per micro-batch pass,
    labelled with its micro-batch; the gaps are the pipeline bubbles."""
    e = trace.events
    if e.empty:
        raise ValueError(f"{trace.path}: /events is empty (trace level {trace.attrs.get('trace_level')})")
    e = e[(e["step"] == step) & (e["replica"] == replica)]
    compute = e[e["stream"] == "compute"]
    stages = sorted(e["stage"].unique())
    fig, ax = plt.subplots(figsize=(12, 0.6 * len(stages) + 1.5))
    for kind, rows in compute.groupby("kind"):
        for stage, stage_rows in rows.groupby("stage"):
            ax.broken_barh(
                list(zip(stage_rows["start_s"], stage_rows["duration_s"])),
                (stage - 0.4, 0.8),
                facecolors=_KIND_COLORS.get(kind, "#999999"),
                edgecolor="white",
                linewidth=0.3,
                label=kind,
            )
    # Micro-batch numbers on bars wide enough to hold them.
    span = (compute["end_s"].max() - compute["start_s"].min()) if not compute.empty else 1.0
    for _, r in compute[compute["microbatch"] >= 0].iterrows():
        if r["duration_s"] > span / 150:
            ax.text(r["start_s"] + r["duration_s"] / 2, r["stage"], str(int(r["microbatch"])), ha="center",
                    va="center", fontsize=6, color="white")
    handles, names = ax.get_legend_handles_labels()
    unique = dict(zip(names, handles))
    ax.legend(unique.values(), unique.keys(), loc="upper right", fontsize="small")
    ax.set_yticks(stages)
    ax.set_yticklabels([f"stage {s}" for s in stages])
    ax.invert_yaxis()
    ax.set_xlabel("simulated time (s)")
    ax.set_title(f"Pipeline timeline, step {step} (gaps are bubbles)")
    return fig


def plot_scaling(table: pd.DataFrame):
    """Throughput and MFU against GPU count, from scaling_table() or a sweep table with
    columns gpus, tokens_per_s and (optionally) mfu."""
    table = table.sort_values("gpus")
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    left.plot(table["gpus"], table["tokens_per_s"], "o-", label="simulated")
    base = table.iloc[0]
    ideal = base["tokens_per_s"] * table["gpus"] / base["gpus"]
    left.plot(table["gpus"], ideal, "--", color="grey", label="linear from the smallest")
    left.set_xlabel("GPUs")
    left.set_ylabel("tokens/s")
    left.set_xscale("log", base=2)
    left.set_yscale("log")
    left.legend()
    left.set_title("Throughput")
    if "mfu" in table:
        right.plot(table["gpus"], 100 * table["mfu"], "o-")
        right.set_ylabel("MFU (%)")
    right.set_xlabel("GPUs")
    right.set_xscale("log", base=2)
    right.set_title("Model FLOPs utilization")
    return fig


def _busy_fraction(events: pd.DataFrame, bins: int):
    """Per stream: the fraction of the simulated GPUs busy with it, per time bin."""
    start, end = events["start_s"].min(), events["end_s"].max()
    width = (end - start) / bins if end > start else 1.0
    edges = [start + i * width for i in range(bins + 1)]
    gpus = max(1, events["rank"].nunique())
    out = {}
    for stream, rows in events.groupby("stream"):
        busy = [0.0] * bins
        for s, e in zip(rows["start_s"], rows["end_s"]):
            first, last = int((s - start) / width), min(bins - 1, int((e - start) / width))
            for b in range(max(0, first), last + 1):
                busy[b] += max(0.0, min(e, edges[b + 1]) - max(s, edges[b]))
        out[stream] = [x / (width * gpus) for x in busy]
    centers = [(edges[i] + edges[i + 1]) / 2 for i in range(bins)]
    return pd.DataFrame(out, index=centers)


def plot_link_utilization(trace: Trace, bins: int = 200):
    """Link utilization over time from /links (schema 1.1: the busiest links and each link
    class's mean); for a schema 1.0 trace, which has no /links, the communication streams'
    activity over time from /events, a proxy that says so in its title."""
    fig, ax = plt.subplots(figsize=(10, 4))
    if not trace.links.empty:
        for name, rows in trace.links.groupby("link"):
            ax.plot(rows["time_s"], 100 * rows["utilization"], label=name)
        ax.set_title("Link utilization")
        ax.set_ylabel("utilization (%)")
    else:
        comm = trace.events[trace.events["stream"].isin(["tp_comm", "pp_comm", "dp_comm"])]
        if comm.empty:
            raise ValueError(f"{trace.path}: neither /links nor communication events to plot")
        busy = _busy_fraction(comm, bins)
        for stream in busy.columns:
            ax.plot(busy.index, 100 * busy[stream], label=stream, linewidth=1)
        ax.set_title("Communication activity over time (proxy: /links is not produced by this trace)")
        ax.set_ylabel("simulated GPUs communicating (%)")
    ax.set_xlabel("simulated time (s)")
    ax.legend(fontsize="small")
    return fig


_PHASE_COLORS = {
    "training": "#55a868",
    "checkpoint": "#4c72b0",
    "checkpoint interrupted": "#c44e52",
    "downtime": "#8c8c8c",
}
_PLANNED = "planned maintenance"
_HOUR = 3600.0


def _interruption_groups(failures: pd.DataFrame, most: int = 9):
    """(label, rows, colour, planned) per group of interruptions to mark: the `most` most frequent
    failure causes (tab10), the other causes together (grey), planned maintenance (black)."""
    unplanned = failures[~failures["planned"]]
    counts = unplanned["cause"].value_counts()
    named = sorted(counts.index, key=lambda cause: (-counts[cause], cause))[:most]  # ties by name
    palette = [c for i, c in enumerate(plt.get_cmap("tab10").colors) if i != 7]  # 7: grey, for the others
    groups = [(cause, unplanned[unplanned["cause"] == cause], palette[i % len(palette)], False)
              for i, cause in enumerate(named)]
    others = unplanned[~unplanned["cause"].isin(named)]
    if len(others):
        groups.append((f"{others['cause'].nunique()} other causes", others, "#7f7f7f", False))
    planned = failures[failures["planned"]]
    if len(planned):
        groups.append((_PLANNED, planned, "black", True))
    return groups


def plot_run_timeline(trace: Trace):
    """The run-level simulation of one trace over time (hours): on top, what the job did
    (training, synchronous checkpoint writes committed or interrupted, downtime after each
    interruption; asynchronous writes on a lane of their own, as training goes on) and every
    interruption marked by its cause (the nine most frequent named, planned maintenance apart: a
    black triangle); below, the useful training kept (hours) against the ideal of no failures and
    no checkpoints, dropping by the work lost at each failure.

    Short things stay visible in a short run: with at most 100 checkpoints each write has a tick,
    and with at most 40 interruptions each downtime is drawn at least 1/250 of the run wide and
    each interruption has a line across. Interrupted writes always have a tick."""
    if trace.run is None:
        raise ValueError(f"{trace.path}: no run-level simulation ({trace.run_status}); set [run] duration")
    run = trace.run
    phases = run_phases(trace)
    failures = trace.failures
    checkpoints = trace.checkpoints
    end_h = float(run["wall_time_s"]) / _HOUR
    few_failures = len(failures) <= 40
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(13, 7), sharex=True, gridspec_kw={"height_ratios": [1.3, 1]})

    # Lanes, top to bottom: job state, asynchronous checkpoints (when there are any), interruptions.
    asynchronous = checkpoints[checkpoints["async"]]
    lanes = {"job": 1, "interruptions": 0}
    if len(asynchronous):
        lanes = {"job": 2, "async checkpoints": 1, "interruptions": 0}
    least_h = end_h / 250 if few_failures else 0.0
    for phase, color in _PHASE_COLORS.items():
        rows = phases[phases["phase"] == phase]
        widths = (rows["end_s"] - rows["start_s"]) / _HOUR
        if phase == "downtime":
            widths = widths.clip(lower=least_h)
        top.broken_barh(list(zip(rows["start_s"] / _HOUR, widths)), (lanes["job"] - 0.35, 0.7), facecolors=color,
                        label=phase if len(rows) else None)
    for committed, rows in asynchronous.groupby("committed"):
        color = _PHASE_COLORS["checkpoint" if committed else "checkpoint interrupted"]
        top.broken_barh(list(zip(rows["start_s"] / _HOUR, rows["duration_s"] / _HOUR)),
                        (lanes["async checkpoints"] - 0.25, 0.5), facecolors=color, alpha=0.6)
    ticks = checkpoints if len(checkpoints) <= 100 else checkpoints[~checkpoints["committed"]]
    for committed, rows in ticks.groupby("committed"):
        lane = [lanes["async checkpoints"] if a else lanes["job"] for a in rows["async"]]
        color = _PHASE_COLORS["checkpoint" if committed else "checkpoint interrupted"]
        top.scatter(rows["start_s"] / _HOUR, lane, marker="|", s=300, color=color, linewidths=1)
    for label, rows, color, planned in _interruption_groups(failures):
        if few_failures:
            for t in rows["time_s"] / _HOUR:
                top.axvline(t, color=color, linewidth=0.8, linestyle="--" if planned else ":", alpha=0.7, zorder=0.5)
        top.scatter(rows["time_s"] / _HOUR, [lanes["interruptions"]] * len(rows), color=color,
                    marker="v" if planned else "X", s=60 if few_failures else 25, zorder=3,
                    label=f"{label} ({len(rows)})")
    top.set_yticks(list(lanes.values()))
    top.set_yticklabels(list(lanes.keys()))
    top.set_ylim(-0.6, max(lanes.values()) + 0.6)
    top.set_xlim(0, end_h)
    top.set_title(f"Run timeline: {int(run['failures'])} failures, {int(run.get('planned_interruptions', 0))} planned "
                  f"stops, {int(run['checkpoints_written'])} checkpoints committed, "
                  f"{int(run['checkpoints_interrupted'])} interrupted")
    top.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="x-small")

    progress = run_progress(trace)
    bottom.plot([0, end_h], [0, end_h], "--", color="grey", label="no failures, no checkpoints")
    bottom.plot(progress["time_s"] / _HOUR, progress["useful_s"] / _HOUR, color=_PHASE_COLORS["training"],
                label="useful training kept")
    bottom.fill_between(progress["time_s"] / _HOUR, progress["useful_s"] / _HOUR, progress["time_s"] / _HOUR,
                        color=_PHASE_COLORS["downtime"], alpha=0.3, label="checkpoints, downtime, work redone")
    bottom.set_xlabel("run time (hours)")
    bottom.set_ylabel("useful training (hours)")
    bottom.set_title(f"Effective training time ratio {float(run['effective_training_time_ratio']):.3f} "
                     f"(lost {float(run['lost_work_s']) / _HOUR:.2f} h, restarts "
                     f"{float(run['restart_overhead_s']) / _HOUR:.2f} h, checkpoints "
                     f"{float(run['checkpoint_overhead_s']) / _HOUR:.2f} h)")
    bottom.legend(loc="upper left", fontsize="small")
    fig.tight_layout()
    return fig


def _run_column(table: pd.DataFrame, name: str) -> pd.Series:
    """`name` from run_table(), or `run_<name>` from a sweep's results.csv."""
    for column in (name, f"run_{name}"):
        if column in table:
            return pd.to_numeric(table[column])
    raise KeyError(f"the table has neither {name} nor run_{name} (columns: {list(table.columns)})")


def plot_goodput_vs_interval(table: pd.DataFrame):
    """Effective training time ratio against the checkpoint interval, one point per run (several
    runs at one interval, e.g. seeds, are averaged by the line), the best interval marked. `table`:
    run_table(traces), or a sweep's results.csv (columns run_checkpoint_interval_s and
    run_effective_training_time_ratio). With the checkpoint cost and MTTI in the table, Young's
    interval sqrt(2 x cost x MTTI) (Young 1974) is drawn for reference."""
    frame = pd.DataFrame({"interval_s": _run_column(table, "checkpoint_interval_s"),
                          "ratio": _run_column(table, "effective_training_time_ratio")}).dropna()
    if frame.empty:
        raise ValueError("no runs to plot")
    mean = frame.groupby("interval_s")["ratio"].mean()
    unit, scale = ("min", 60.0) if mean.index.to_series().median() < _HOUR else ("h", _HOUR)
    fig, ax = plt.subplots(figsize=(7, 4))
    ax.plot(frame["interval_s"] / scale, frame["ratio"], "o", color="#4c72b0", alpha=0.5, label="runs")
    ax.plot(mean.index / scale, mean.values, "-", color="#4c72b0", label="mean per interval")
    best = mean.idxmax()
    ax.plot([best / scale], [mean[best]], "*", color="#c44e52", markersize=16, zorder=3,
            label=f"best: {best / scale:.3g} {unit} (ratio {mean[best]:.3f})")
    try:
        cost = _run_column(table, "checkpoint_cost_s").median()
        mtti = _run_column(table, "mtti_s").median()
    except KeyError:
        cost = mtti = 0.0
    if cost > 0 and mtti > 0:
        young = (2 * cost * mtti) ** 0.5
        ax.axvline(young / scale, color="grey", linestyle="--", label=f"Young's interval {young / scale:.3g} {unit}")
    positive = mean.index[mean.index > 0]
    if len(positive) == len(mean) and positive.max() / positive.min() > 20:
        ax.set_xscale("log")
    if len(mean) <= 12:  # each interval run, labelled as given
        ax.set_xticks(mean.index / scale)
        ax.set_xticklabels([f"{v:.3g}" for v in mean.index / scale])
        ax.minorticks_off()
    ax.set_xlabel(f"checkpoint interval ({unit} of training)")
    ax.set_ylabel("effective training time ratio")
    ax.set_title("Goodput against the checkpoint interval")
    ax.legend(fontsize="small")
    return fig


_OP_KIND_COLORS = {
    "gemm": "#4c72b0",
    "batched_gemm": "#64b5cd",
    "attention": "#c44e52",
    "norm": "#55a868",
    "elementwise": "#ccb974",
    "embedding": "#937860",
    "loss": "#8172b3",
    "optimizer": "#797979",
}


def plot_layer(layer: Layer):
    """One layer's ops as horizontal bars of microseconds, coloured by kind, forward above
    backward; with a measurement, a second panel sets each measured kernel's predicted time
    beside the measured one and names the layer's deviation."""
    ops = layer.ops
    panels = 2 if layer.measured is not None else 1
    height = max(4.0, 0.22 * max(len(ops), 0 if layer.measured is None else len(layer.measured)) + 1.5)
    fig, axes = plt.subplots(1, panels, figsize=(7 * panels, height), squeeze=False)
    ax = axes[0][0]
    labels = [f"{p}  {o}" for p, o in zip(ops["pass"], ops["op"])]
    ax.barh(range(len(ops)), ops["time_s"] * 1e6, color=[_OP_KIND_COLORS.get(k, "#c7c7c7") for k in ops["kind"]])
    ax.set_yticks(range(len(ops)))
    ax.set_yticklabels(labels, fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("microseconds")
    ax.set_title(f"{layer.label}: {layer.totals.get('layer_s', 0) * 1e3:.2f} ms per layer")
    kinds = list(dict.fromkeys(ops["kind"]))
    ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=_OP_KIND_COLORS.get(k, "#c7c7c7")) for k in kinds],
              labels=kinds, fontsize="small", loc="lower right")
    if layer.measured is not None:
        m = layer.measured
        ax = axes[0][1]
        y = range(len(m))
        ax.barh([i - 0.2 for i in y], m["predicted_s"] * 1e6, height=0.4, label="predicted", color="#4c72b0")
        ax.barh([i + 0.2 for i in y], m["measured_s"] * 1e6, height=0.4, label="measured", color="#dd8452")
        ax.set_yticks(list(y))
        ax.set_yticklabels([f"{p}  {o}" for p, o in zip(m["pass"], m["op"])], fontsize="small")
        ax.invert_yaxis()
        ax.set_xlabel("microseconds")
        total = layer.measured_totals.get("layer", {})
        deviation = total.get("deviation")
        verdict = "" if deviation is None else f": predicted {100 * deviation:+.1f} % of measured"
        ax.set_title(f"against {Path(layer.measured_file).name}{verdict}")
        ax.legend(fontsize="small", loc="lower right")
    fig.tight_layout()
    return fig
