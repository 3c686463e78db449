"""Figures from loaded traces (matplotlib, Agg backend: no display needed): saving them, the run-level
simulation, a layer, a drill. A step's figures: step_figures (breakdown, scaling) and timeline_figures
(pipeline, links)."""

from pathlib import Path
from typing import Optional, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .drill import Drill  # noqa: E402
from .layer import Layer  # noqa: E402
from .trace import Trace, run_phases, run_progress  # noqa: E402


def save_figure(fig, path: Union[str, Path]) -> Path:
    """Writes `fig` as PNG (creating the folder) and closes it."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path, dpi=120, bbox_inches="tight")
    plt.close(fig)
    return path


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
        n = others["cause"].nunique()
        groups.append((f"{n} other cause{'s' if n > 1 else ''}", others, "#7f7f7f", False))
    planned = failures[failures["planned"]]
    if len(planned):
        groups.append((_PLANNED, planned, "black", True))
    return groups


#: checkpoint writes in the run timeline's count panel: (label, colour), stacked in this order
_CHECKPOINT_GROUPS = [
    ("committed, synchronous", _PHASE_COLORS["checkpoint"]),
    ("committed, asynchronous", "#a1c9f4"),
    ("interrupted", _PHASE_COLORS["checkpoint interrupted"]),
]


def checkpoint_bins(checkpoints: pd.DataFrame, end_s: float, bins: Optional[int] = None) -> pd.DataFrame:
    """Checkpoint writes counted per time bin of the run, by when they began: one row per bin
    (start_s, end_s, and a count per group of _CHECKPOINT_GROUPS). Every write falls in one bin, so
    the counts add up to len(checkpoints). `bins` defaults to about 2 sqrt(n), 10 to 120."""
    n = len(checkpoints)
    if bins is None:
        bins = int(min(120, max(10, round(2 * n ** 0.5))))
    edges = np.linspace(0.0, max(end_s, float(checkpoints["start_s"].max()) if n else 0.0, 1e-9), bins + 1)
    where = np.clip(np.searchsorted(edges, checkpoints["start_s"].to_numpy(), side="right") - 1, 0, bins - 1)
    committed = checkpoints["committed"].to_numpy(dtype=bool)
    asynchronous = checkpoints["async"].to_numpy(dtype=bool)
    masks = [committed & ~asynchronous, committed & asynchronous, ~committed]
    frame = pd.DataFrame({"start_s": edges[:-1], "end_s": edges[1:]})
    for (label, _), mask in zip(_CHECKPOINT_GROUPS, masks):
        frame[label] = np.bincount(where[mask], minlength=bins)
    return frame


def _plot_checkpoint_counts(ax, checkpoints: pd.DataFrame, end_h: float):
    """The run timeline's middle panel: checkpoint writes per time bin, stacked by group, with the total."""
    ax.set_gid("checkpoints per bin")
    counts = checkpoint_bins(checkpoints, end_h * _HOUR)
    width_h = float(counts["end_s"].iloc[0] - counts["start_s"].iloc[0]) / _HOUR
    bottom = np.zeros(len(counts))
    for label, color in _CHECKPOINT_GROUPS:
        values = counts[label].to_numpy()
        if values.sum():
            ax.bar(counts["start_s"] / _HOUR, values, width=width_h, bottom=bottom, align="edge", color=color,
                   edgecolor="white", linewidth=0.3, label=f"{label} ({int(values.sum())})", gid="checkpoint-count")
        bottom += values
    unit = f"{width_h:.3g} h" if width_h >= 1 else f"{60 * width_h:.3g} min"
    committed = int(checkpoints["committed"].sum())
    ax.set_ylabel(f"writes per {unit}")
    ax.set_ylim(0, max(1.0, bottom.max()) * 1.3)
    ax.annotate(f"{len(checkpoints)} checkpoint writes: {committed} committed, {len(checkpoints) - committed} "
                f"interrupted (all counted, in bins of {unit})", xy=(0.005, 0.96), xycoords="axes fraction",
                va="top", ha="left", fontsize="small", gid="checkpoint-total",
                bbox=dict(boxstyle="round,pad=0.3", fc="white", ec="#cccccc", alpha=0.9))
    if len(checkpoints):
        ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="x-small")


def plot_run_timeline(trace: Trace):
    """The run-level simulation of one trace over time (hours): on top, what the job did
    (training, synchronous checkpoint writes committed or interrupted, downtime after each
    interruption; asynchronous writes on a lane of their own, as training goes on) and every
    interruption marked by its cause (the nine most frequent named, planned maintenance apart: a
    black triangle); in the middle, every checkpoint write counted per time bin (committed
    synchronous, committed asynchronous, interrupted, stacked; the total annotated), so that none is
    lost at any run length; below, the useful training kept (hours) against the ideal of no
    failures and no checkpoints, dropping by the work lost at each failure.

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
    fig, (top, middle, bottom) = plt.subplots(3, 1, figsize=(13, 9), sharex=True,
                                              gridspec_kw={"height_ratios": [1.3, 0.7, 1]})

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

    _plot_checkpoint_counts(middle, checkpoints, end_h)

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
    run_effective_training_time_ratio; rows with status does_not_fit are left out). With the
    checkpoint cost and MTTI in the table, Young's
    interval sqrt(2 x cost x MTTI) (Young 1974) is drawn for reference."""
    # A sweep's rows that do not fit in GPU memory are never the best interval (issue 55).
    if "status" in table:
        table = table[table["status"].astype(str) != "does_not_fit"]
    if "fits" in table:
        table = table[table["fits"].astype(str).str.lower() != "false"]
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


def plot_drill_curves(drill: Drill):
    """Loss against step: the uninterrupted run (thick) and every other run of the drill; the
    checkpoint steps and the interruptions marked."""
    fig, ax = plt.subplots(figsize=(9, 5))
    reference = drill.curve("uninterrupted")
    ax.plot(reference.index, reference["loss"], color="black", linewidth=3, alpha=0.5, label="uninterrupted")
    for run in drill.divergence["run"]:
        curve = drill.curve(run)
        ax.plot(curve.index, curve["loss"], linewidth=1, label=run)
    every = int(drill.attrs["checkpoint_every"])
    for step in range(every, int(drill.attrs["steps"]) + 1, every):
        ax.axvline(step, color="#bbbbbb", linewidth=0.5, zorder=0)
    for step in np.atleast_1d(drill.attrs["fail_at"]):
        ax.axvline(float(step), color="#c44e52", linestyle="--", linewidth=1, zorder=0)
    ax.set_xlabel("step (grey: checkpoints, red dashed: interruptions)")
    ax.set_ylabel("training loss (cross-entropy, nats)")
    ax.set_title(f"drill: dp {drill.attrs['dp']} x micro_batch {drill.attrs['micro_batch']} x grad_accum "
                 f"{drill.attrs['grad_accum']}, {drill.attrs['reduction_order']} order in "
                 f"{drill.attrs['reduction_precision']}")
    ax.legend(fontsize=7, ncol=2)
    return fig


def plot_drill_divergence(drill: Drill):
    """|loss - uninterrupted loss| per step, log scale: a bit-identical run draws nothing."""
    fig, ax = plt.subplots(figsize=(9, 5))
    diff = drill.loss_difference()
    for run in diff.columns:
        values = diff[run].where(diff[run] > 0)
        if values.notna().any():
            ax.semilogy(values.index, values, linewidth=1, label=run)
    identical = drill.divergence.loc[drill.divergence["bit_identical"] == 1, "run"].tolist()
    if identical:
        ax.text(0.01, 0.99, "bit-identical (not drawn): " + ", ".join(identical), transform=ax.transAxes, fontsize=8,
                va="top")
    ax.set_xlabel("step")
    ax.set_ylabel("|loss - uninterrupted loss|")
    ax.legend(fontsize=7, ncol=2)
    return fig
