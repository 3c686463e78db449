"""Figures of one trace over simulated time: the pipeline (each stage's passes, numbered by micro-batch,
and its communication; a replayed trace's ranks), and link utilization averaged over windows."""

import colorsys
from typing import Iterable, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors as mcolors  # noqa: E402
import matplotlib.pyplot as plt  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .step_figures import context_title, run_context  # noqa: E402
from .trace import NOT_APPLICABLE_TO_REPLAY, Trace, bubble_per_stage, busy_intervals  # noqa: E402

KIND_COLORS = {
    "forward": "#4c72b0",
    "backward": "#dd8452",
    "weight": "#c44e52",
    "recompute": "#8172b3",
    "optimizer": "#55a868",
}
# Each stream of a stage's GPU beside its compute, coloured as the step breakdown.
_STREAM_COLORS = {"tp_comm": "#da8bc3", "pp_comm": "#ccb974", "dp_comm": "#64b5cd", "data": "#937860",
                  "comm": "#da8bc3"}
_CHUNK_HATCHES = ["", "////", "....", "xxxx", "\\\\\\\\", "++++", "oooo", "----"]
_LABEL_FONT = 7  # points, the micro-batch numbers


def chunk_color(color: str, chunk: int, chunks: int):
    """`color` for model chunk 0, darker for each later chunk (mixed with black, up to 40 %): later
    chunks are told apart by shade and hatch without turning pale."""
    rgb = np.array(mcolors.to_rgb(color))
    mix = 0.4 * chunk / max(1, chunks - 1) if chunks > 1 else 0.0
    return tuple(float(v) for v in rgb * (1.0 - mix))


def _text_color(face) -> str:
    r, g, b = mcolors.to_rgb(face)
    return "black" if 0.299 * r + 0.587 * g + 0.114 * b > 0.6 else "white"


def pipeline_passes(trace: Trace, step: int = 0, replica: int = 0) -> pd.DataFrame:
    """The compute passes of one step and replica: consecutive compute slices of a stage with the
    same kind, model chunk and micro-batch joined into one (a pass is recorded in pieces between its
    TP collectives). Columns stage, kind, layer (model chunk), microbatch, start_s, end_s, slices."""
    e = trace.events
    e = e[(e["step"] == step) & (e["replica"] == replica) & (e["stream"] == "compute")]
    rows = []
    for stage, g in e.sort_values(["stage", "start_s"]).groupby("stage"):
        current = None
        for r in g.itertuples():
            key = (r.kind, int(r.layer), int(r.microbatch))
            if current is not None and current["key"] == key:
                current["end_s"] = max(current["end_s"], r.end_s)
                current["slices"] += 1
                continue
            if current is not None:
                rows.append(current)
            current = {"stage": int(stage), "key": key, "start_s": r.start_s, "end_s": r.end_s, "slices": 1}
        if current is not None:
            rows.append(current)
    frame = pd.DataFrame([{"stage": r["stage"], "kind": r["key"][0], "layer": r["key"][1], "microbatch": r["key"][2],
                           "start_s": r["start_s"], "end_s": r["end_s"], "slices": r["slices"]} for r in rows],
                         columns=["stage", "kind", "layer", "microbatch", "start_s", "end_s", "slices"])
    frame["duration_s"] = frame["end_s"] - frame["start_s"]
    return frame


def _label_passes(ax, fig, passes: pd.DataFrame, span: float, colors):
    """Each pass's micro-batch number on it, across where it fits, else upright, else not at all."""
    fig.canvas.draw()  # the axes' final size
    inches_per_s = ax.get_window_extent().width / fig.dpi / span
    char = _LABEL_FONT / 72.0
    for r in passes[passes["microbatch"] >= 0].itertuples():
        text = str(r.microbatch)
        width_in = r.duration_s * inches_per_s
        if width_in >= (0.62 * len(text) + 0.4) * char:
            rotation = 0
        elif width_in >= 1.3 * char and len(text) <= 3:
            rotation = 90
        else:
            continue
        ax.text(r.start_s + r.duration_s / 2, r.stage - 0.1, text, ha="center", va="center", rotation=rotation,
                fontsize=_LABEL_FONT, color=_text_color(colors[(r.kind, r.layer)]), gid="microbatch")


def plot_pipeline_timeline(trace: Trace, step: int = 0, replica: int = 0, ranks: Optional[Iterable[int]] = None):
    """Gantt chart of one step per pipeline stage: compute passes (pipeline_passes) in their kind's
    colour, the legend's colour exactly (forward, backward, ...), each later model chunk of an
    interleaved schedule darker and hatched, each numbered with its micro-batch where the number
    fits; under them a thin strip of the GPU's other streams as busy_intervals() counts them (TP
    collectives, pipeline transfers received and, where sends block, sent, the gradient reductions'
    wait before the optimizer, data waits). The white gaps are the bubble, as /summary's
    `bubble_fraction` counts it (bubble_per_stage): each stage's share of the step is in its axis
    label. The legend sits outside the axes. A replayed trace: plot_replay_timeline(trace, ranks)."""
    if trace.is_replay:
        return plot_replay_timeline(trace, ranks)
    e = trace.events
    if e.empty:
        raise ValueError(f"{trace.path}: /events is empty (trace level {trace.attrs.get('trace_level')})")
    e = e[(e["step"] == step) & (e["replica"] == replica)]
    if e.empty:
        raise ValueError(f"{trace.path}: no events of step {step}, replica {replica}")
    passes = pipeline_passes(trace, step, replica)
    stages = sorted(e["stage"].unique())
    chunks = max(int(trace.layout.get("virtual_stages", 1)), int(passes["layer"].max()) + 1 if len(passes) else 1)
    fig, ax = plt.subplots(figsize=(14, 0.8 * len(stages) + 1.9))
    handles, colors = {}, {}
    order = list(KIND_COLORS)
    kinds = sorted(passes["kind"].unique(), key=lambda k: (order.index(k) if k in order else len(order), k))
    for kind in kinds:
        for chunk, chunk_rows in passes[passes["kind"] == kind].groupby("layer"):
            chunk = int(chunk)
            color = chunk_color(KIND_COLORS.get(kind, "#999999"), max(chunk, 0), chunks)
            colors[(kind, chunk)] = color
            hatch = _CHUNK_HATCHES[chunk % len(_CHUNK_HATCHES)] if chunk > 0 else ""
            label = f"{kind}, chunk {chunk}" if chunks > 1 and chunk >= 0 else kind
            for stage, stage_rows in chunk_rows.groupby("stage"):
                # White edges part neighbouring passes; a hatch is drawn in the edge colour, light on the shade.
                bars = ax.broken_barh(list(zip(stage_rows["start_s"], stage_rows["duration_s"])), (stage - 0.4, 0.6),
                                      facecolors=[color], edgecolors=["white" if not hatch else (1, 1, 1, 0.6)],
                                      linewidth=0.5, hatch=hatch or None, label=label)
                handles.setdefault(label, bars)
    other = e[e["stream"] != "compute"]
    try:  # the communication as the bubble counts it (blocking sends on the sender too)
        other = busy_intervals(trace, e)
        other = other[other["stream"] != "compute"].assign(duration_s=lambda f: f["end_s"] - f["start_s"])
    except (KeyError, ValueError):
        pass
    for stream, rows in other.groupby("stream"):
        color = _STREAM_COLORS.get(stream, "#7f7f7f")
        for stage, stage_rows in rows.groupby("stage"):
            bars = ax.broken_barh(list(zip(stage_rows["start_s"], stage_rows["duration_s"])), (stage + 0.22, 0.16),
                                  facecolors=color, linewidth=0, label=stream)
            handles.setdefault(stream, bars)
    handles["bubble (waiting on the pipeline)"] = plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="#999999")
    ax.legend(handles.values(), handles.keys(), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
              borderaxespad=0.0)
    labels = [f"stage {s}" for s in stages]
    title = "bubble: white where a stage has neither compute (above) nor communication (below)"
    try:
        bubble = bubble_per_stage(trace, replica=replica)
        bubble = bubble[bubble["step"] == step].set_index("stage")
        labels = [f"stage {s}\nbubble {100 * bubble.loc[s, 'bubble_fraction']:.1f} %" if s in bubble.index
                  else f"stage {s}" for s in stages]
        title += (f": {100 * bubble['bubble_s'].sum() / bubble['step_s'].sum():.1f} % of the step "
                  f"(/summary's bubble_fraction: {100 * float(trace.summary['bubble_fraction']):.1f} %)")
    except ValueError:  # aggregated events: the bubble cannot be told from them
        pass
    ax.set_yticks(stages)
    ax.set_yticklabels(labels, fontsize="small")
    ax.set_ylim(max(stages) + 0.6, min(stages) - 0.6)  # stage 0 on top
    ax.set_xlabel("simulated time (s); each pass numbered with its micro-batch")
    ax.set_title(f"Pipeline timeline, step {step}: {trace.label}; {context_title([run_context(trace)])}\n{title}",
                 fontsize="medium")
    start, end = e["start_s"].min(), e["end_s"].max()
    ax.set_xlim(start - 0.01 * (end - start), end + 0.01 * (end - start))
    _label_passes(ax, fig, passes, ax.get_xlim()[1] - ax.get_xlim()[0], colors)
    return fig


def _shown_ranks(trace: Trace, ranks: Optional[Iterable[int]], most: int = 16):
    every = sorted(int(r) for r in trace.events["rank"].unique())
    if ranks is not None:
        return [r for r in ranks if r in set(every)]
    if len(every) <= most:
        return every
    return [every[int(i)] for i in np.unique(np.linspace(0, len(every) - 1, most).round().astype(int))]


def plot_replay_timeline(trace: Trace, ranks: Optional[Iterable[int]] = None):
    """A replayed Chakra trace over time, one row per rank (`ranks`, default every rank up to 16,
    else 16 spread evenly): its kernels (compute) above, its collectives and sends below. A replay
    has no pipeline schedule: white is the time a rank waited on others (its idle time, as
    `trainsim replay` counts it: replay_per_rank), each rank's share in its label, and the title
    says that /summary's bubble_fraction does not apply."""
    shown = _shown_ranks(trace, ranks)
    if not shown:
        raise ValueError(f"{trace.path}: none of the ranks {list(ranks or [])} is in the trace")
    per_rank = bubble_per_stage(trace).set_index("rank")
    e = trace.events[trace.events["rank"].isin(shown)]
    row = {r: i for i, r in enumerate(shown)}
    fig, ax = plt.subplots(figsize=(14, 0.55 * len(shown) + 2.0))
    handles = {}
    for stream, rows in e.groupby("stream"):
        compute = stream == "compute"
        color = KIND_COLORS["forward"] if compute else _STREAM_COLORS.get(stream, "#7f7f7f")
        label = "compute (kernels)" if compute else {"comm": "collectives", "pp_comm": "sends"}.get(stream, stream)
        for rank, rank_rows in rows.groupby("rank"):
            y = (row[rank] - 0.4, 0.6) if compute else (row[rank] + 0.22, 0.16)
            bars = ax.broken_barh(list(zip(rank_rows["start_s"], rank_rows["end_s"] - rank_rows["start_s"])), y,
                                  facecolors=color, linewidth=0, label=label)
            handles.setdefault(label, bars)
    handles["idle (waiting on other ranks)"] = plt.Rectangle((0, 0), 1, 1, facecolor="white", edgecolor="#999999")
    ax.legend(handles.values(), handles.keys(), loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small",
              borderaxespad=0.0)
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([f"rank {r}\nidle {100 * per_rank.loc[r, 'bubble_fraction']:.1f} %" for r in shown],
                       fontsize="x-small")
    ax.set_ylim(len(shown) - 0.4, -0.6)
    ax.set_xlabel("simulated time (s)")
    ranks_text = f"{len(shown)} of {len(per_rank)} ranks" if len(shown) < len(per_rank) else f"{len(shown)} ranks"
    ax.set_title(f"Replay timeline: {trace.attrs.get('scenario_path', '')} on {run_context(trace)['gpu']}, "
                 f"{ranks_text}\nwhite: waiting on other ranks, {100 * per_rank['bubble_fraction'].mean():.1f} % of "
                 f"the replay on average over every rank; /summary's bubble_fraction is {NOT_APPLICABLE_TO_REPLAY}",
                 fontsize="medium")
    return fig


def _line_styles(count: int):
    """`count` distinct (colour, line style) pairs: tab20's colours, then again dashed, dotted, ..."""
    colors = list(plt.get_cmap("tab20").colors)
    colors = colors[0::2] + colors[1::2]  # the darker ten first
    styles = ["-", "--", ":", "-."]
    return [(colors[i % len(colors)], styles[(i // len(colors)) % len(styles)]) for i in range(count)]


def _windows(start: float, end: float, windows: int):
    return np.linspace(start, end if end > start else start + 1.0, windows + 1)


def link_windows(trace: Trace, windows: Optional[int] = None) -> pd.DataFrame:
    """/links averaged over equal windows of the sampled time: one row per link and window (link,
    class, window, start_s, end_s, samples, utilization: the mean of the link's samples in the
    window, 0..1; the samples are evenly spaced, so this is the window's time average). `windows`
    defaults to one per 5 samples of a link, at most 60."""
    links = trace.links
    if links.empty:
        raise ValueError(f"{trace.path}: /links is empty ({trace.links_attrs.get('status', 'no samples')})")
    per_link = int(links.groupby("link").size().max())
    windows = int(windows or max(1, min(60, per_link // 5)))
    edges = _windows(float(links["time_s"].min()), float(links["time_s"].max()), windows)
    where = np.clip(np.searchsorted(edges, links["time_s"].to_numpy(), side="right") - 1, 0, windows - 1)
    frame = links.assign(window=where).groupby(["link", "class", "window"], as_index=False).agg(
        samples=("utilization", "size"), utilization=("utilization", "mean"))
    frame["start_s"] = edges[frame["window"].to_numpy()]
    frame["end_s"] = edges[frame["window"].to_numpy() + 1]
    return frame[["link", "class", "window", "start_s", "end_s", "samples", "utilization"]]


def _busy_fraction(events: pd.DataFrame, windows: int) -> pd.DataFrame:
    """Per stream: the fraction of the simulated GPUs busy with it, per window (index: window start)."""
    edges = _windows(events["start_s"].min(), events["end_s"].max(), windows)
    gpus = max(1, events["rank"].nunique())
    out = {}
    for stream, rows in events.groupby("stream"):
        busy = np.zeros(windows)
        for s, e in zip(rows["start_s"], rows["end_s"]):
            busy += np.clip(np.minimum(e, edges[1:]) - np.maximum(s, edges[:-1]), 0.0, None)
        out[stream] = busy / ((edges[1] - edges[0]) * gpus)
    return pd.DataFrame(out, index=edges[:-1]).assign(end_s=edges[1:])


#: the note on a link figure of a trace simulated with the symmetry reduction
SYMMETRY_NOTE = ("Symmetry reduction (trainsim's default): one data-parallel replica is simulated, and a "
                 "tensor-parallel collective loads NVLink only the first\ntime its size occurs (later ones reuse its "
                 "simulated time), so NVLink shows close to 0 %{nvlink} though the collectives run on it. Run with "
                 "--full to see every collective on the links.")


def _stairs(ax, starts, ends, values, **kwargs):
    """A series of window means as steps, each window's mean across its window."""
    x = list(starts) + [list(ends)[-1]]
    y = list(values) + [list(values)[-1]]
    return ax.plot(x, y, drawstyle="steps-post", **kwargs)


def plot_link_utilization(trace: Trace, windows: Optional[int] = None):
    """Link utilization over time from /links (schema 1.1), averaged over windows (link_windows):
    above, each link class's mean (one line per class, its own colour and style; the y axis from
    0); below, the busiest links one row each, coloured by their mean utilization in each window
    (0 to 100 %). For a trace simulated with the symmetry reduction, a note under the axes says
    that NVLink carries only the simulated collectives (about 0 %). For a schema 1.0 trace, which
    has no /links, the share of simulated GPUs communicating on each stream per window, from
    /events, a proxy that says so in its title."""
    reduced = int(trace.attrs.get("reduce_symmetry", 0)) == 1
    context = context_title([run_context(trace)])
    if trace.links.empty:
        comm = trace.events[trace.events["stream"].isin(["tp_comm", "pp_comm", "dp_comm"])]
        if comm.empty:
            raise ValueError(f"{trace.path}: neither /links nor communication events to plot")
        busy = _busy_fraction(comm, int(windows or 60))
        fig, ax = plt.subplots(figsize=(11, 4.5))
        streams = [c for c in busy.columns if c != "end_s"]
        for (color, style), stream in zip(_line_styles(len(streams)), streams):
            _stairs(ax, busy.index, busy["end_s"], 100 * busy[stream], label=stream, color=color, linestyle=style)
        ax.set_title(f"Communication activity over time (proxy: /links is not produced by this trace): {trace.label}"
                     f"\n{context}", fontsize="medium")
        ax.set_ylabel("simulated GPUs communicating (%)")
        ax.set_ylim(0, 105)
        ax.set_xlabel("simulated time (s)")
        ax.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0.0)
        axes = [ax]
    else:
        w = link_windows(trace, windows)
        width_ms = 1e3 * float(w["end_s"].iloc[0] - w["start_s"].iloc[0])
        classes = sorted(n for n in w["link"].unique() if n.startswith("class:"))
        busiest = sorted(n for n in w["link"].unique() if not n.startswith("class:"))
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(12, 3.2 + 0.28 * max(4, len(busiest))), sharex=True,
                                          gridspec_kw={"height_ratios": [1.0, max(1.0, 0.12 * len(busiest))]})
        highest = 0.0
        for (color, style), name in zip(_line_styles(len(classes)), classes):
            rows = w[w["link"] == name].sort_values("window")
            label = f"{name[len('class:'):]} links: {100 * rows['utilization'].mean():.2g} % over the step"
            if reduced and rows["class"].iloc[0] == "nvlink":
                label += ": symmetry-reduced"
            _stairs(top, rows["start_s"], rows["end_s"], 100 * rows["utilization"], color=color, linestyle=style,
                    linewidth=1.6, label=label)
            highest = max(highest, 100 * rows["utilization"].max())
        top.set_ylim(0, min(100.0, max(1.0, 1.2 * highest)))  # a ratio: from 0
        top.set_ylabel("mean per class (%)")
        top.legend(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", borderaxespad=0.0)
        top.set_title(f"Link utilization, mean over {width_ms:.3g} ms windows: {trace.label}\n{context}",
                      fontsize="medium")
        edges = np.append(np.sort(w["start_s"].unique()), w["end_s"].max())
        grid = np.zeros((len(busiest), len(edges) - 1))
        for i, name in enumerate(busiest):
            rows = w[w["link"] == name]
            grid[i, rows["window"].to_numpy()] = 100 * rows["utilization"].to_numpy()
        mesh = bottom.pcolormesh(edges, np.arange(len(busiest) + 1), grid, cmap="viridis", vmin=0, vmax=100,
                                 gid="link-windows")
        bottom.set_yticks(np.arange(len(busiest)) + 0.5)
        bottom.set_yticklabels(busiest, fontsize="x-small")
        bottom.set_ylim(len(busiest), 0)
        bottom.set_ylabel(f"the {len(busiest)} busiest links")
        bottom.set_xlabel("simulated time (s)")
        # The colour bar beside the axes, not taken from them: both panels keep one time axis.
        fig.colorbar(mesh, cax=bottom.inset_axes([1.01, 0.0, 0.015, 1.0]), label="mean utilization (%)")
        axes = [top, bottom]
    if reduced:
        nvlink = trace.links[trace.links["link"] == "class:nvlink"] if not trace.links.empty else pd.DataFrame()
        mean = f" (mean here {100 * nvlink['utilization'].mean():.2g} %)" if len(nvlink) else ""
        axes[-1].annotate(SYMMETRY_NOTE.format(nvlink=mean), xy=(0.0, -0.32 if len(axes) > 1 else -0.2),
                          xycoords="axes fraction", va="top", ha="left", fontsize="small", color="#8b0000",
                          gid="symmetry-note", bbox=dict(boxstyle="round,pad=0.4", fc="#fff4e5", ec="#d9a066"))
    return fig
