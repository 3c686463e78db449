"""Figures from loaded traces (matplotlib, Agg backend: no display needed)."""

from pathlib import Path
from typing import Iterable, Optional, Union

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pandas as pd  # noqa: E402

from .trace import BREAKDOWN, Trace  # noqa: E402

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
