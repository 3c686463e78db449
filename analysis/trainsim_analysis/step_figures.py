"""Figures of a step across traces: where the step time goes, and how throughput scales; each titled
with what was simulated (model, GPU, batch: run_context) so that a figure read alone says what it is of."""

import math
from typing import Dict, Iterable, List, Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import matplotlib.ticker as mticker  # noqa: E402
import numpy as np  # noqa: E402
import pandas as pd  # noqa: E402

from .trace import BREAKDOWN, REPLAY_BREAKDOWN, Trace, distinct_labels  # noqa: E402

#: breakdown categories' colours, each its own (idle light grey, as the bubble is white in the timeline);
#: a replay's compute and exposed communication darker than the step's compute and TP communication
CATEGORY_COLORS = dict(
    zip(
        BREAKDOWN,
        ["#937860", "#4c72b0", "#dd8452", "#8172b3", "#55a868", "#da8bc3", "#ccb974", "#64b5cd", "#8c613c",
         "#2ca02c", "#797979", "#17becf", "#d9d9d9"],
    )
)
CATEGORY_COLORS.update({"compute": "#1f3f7a", "exposed_comm": "#9c4f8f"})
#: the order of the bars' categories: the step's, a replay's, idle on top
CATEGORY_ORDER = [c for c in BREAKDOWN if c != "idle"] + [c for c in REPLAY_BREAKDOWN if c != "idle"] + ["idle"]


def _number(value) -> Optional[float]:
    try:
        value = float(value)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(value) else value


def run_context(trace: Trace) -> Dict[str, object]:
    """What a trace simulated, for figure titles: model (name), gpu (the cluster's GPU), global_batch
    (sequences), seq_len (tokens), micro_batch. A replayed trace carries no model or batch (None);
    its GPU is the cluster it was replayed on ("dgx-h100 cluster")."""
    scenario = trace.scenario
    if trace.is_replay:
        words = str(trace.attrs.get("scenario_overrides", "")).split()
        cluster = words[words.index("--cluster") + 1] if "--cluster" in words[:-1] else "?"
        return {"model": None, "gpu": f"{cluster} cluster", "global_batch": None, "seq_len": None, "micro_batch": None}
    model = str(trace.summary.get("model", "") or scenario.get("model.preset", "") or "custom model")
    seq_len = _number(scenario.get("model.seq_len"))
    micro = _number(scenario.get("training.micro_batch"))
    return {"model": model, "gpu": scenario.get("cluster.gpu", "GPU not recorded"),
            "global_batch": _number(trace.summary.get("global_batch_samples")),
            "seq_len": int(seq_len) if seq_len else None, "micro_batch": int(micro) if micro else None}


def _one_or_range(values: List[float]) -> str:
    values = sorted(set(values))
    return f"{values[0]:,.0f}" if len(values) == 1 else f"{values[0]:,.0f} to {values[-1]:,.0f}"


def context_title(contexts: Iterable[Dict[str, object]]) -> str:
    """Model, GPU and batch of one or several traces (run_context) in words: "llama3-70b on h100-sxm,
    global batch 32 x 8,192 tokens (micro-batch 1)"; values that differ are listed or given as a
    range; what a replayed trace does not carry is said."""
    contexts = list(contexts)
    models = list(dict.fromkeys(str(c["model"]) for c in contexts if c["model"] is not None))
    gpus = list(dict.fromkeys(str(c["gpu"]) for c in contexts))
    batches = [c["global_batch"] for c in contexts if c["global_batch"] is not None]
    seqs = [c["seq_len"] for c in contexts if c["seq_len"] is not None]
    micros = [c["micro_batch"] for c in contexts if c["micro_batch"] is not None]
    model = " / ".join(models) if models else "model not recorded"
    if models and any(c["model"] is None for c in contexts):
        model += " / a replay (no model)"
    title = f"{model} on {' / '.join(gpus)}"
    if batches:
        title += f", global batch {_one_or_range(batches)}"
        if seqs:
            title += f" x {_one_or_range(seqs)} tokens"
        if micros:
            title += f" (micro-batch {_one_or_range(micros)})"
    else:
        title += ", batch not recorded (a replayed trace)"
    return title


def plot_step_breakdown(traces: Iterable[Trace], labels: Optional[Iterable[str]] = None):
    """Stacked bars: where a GPU's step time goes (seconds), one bar per trace, labelled by its GPU
    count and layout (distinct_labels: traces of one layout by what else differs), or by `labels`;
    titled with the model, GPU and batch (context_title). A replayed trace's bar has the replay's
    categories (compute, exposed_comm, idle: Trace.breakdown)."""
    traces = list(traces)
    frame = pd.DataFrame([t.breakdown for t in traces]).fillna(0.0)
    frame = frame.loc[:, (frame != 0).any(axis=0)]  # categories no trace has (e.g. ep_comm without MoE) stay out
    order = CATEGORY_ORDER
    frame = frame[sorted(frame.columns, key=lambda c: (order.index(c) if c in order else len(order), c))]
    names = list(labels) if labels is not None else distinct_labels(traces, sep="\n")
    if len(names) != len(traces):
        raise ValueError(f"{len(names)} labels for {len(traces)} traces")
    names = [f"{n}\n(replay)" if t.is_replay and labels is None else n for n, t in zip(names, traces)]
    x = np.arange(len(frame))  # one position per trace: equal labels never merge bars
    fig, ax = plt.subplots(figsize=(max(6, 1.7 * len(frame) + 3), 4.5))
    bottom = np.zeros(len(frame))
    for category in frame.columns:
        values = frame[category].to_numpy()
        ax.bar(x, values, bottom=bottom, label=category, color=CATEGORY_COLORS.get(category), width=0.7)
        bottom += values
    ax.set_xticks(x)
    ax.set_xticklabels(names, fontsize="small")
    ax.set_ylabel("seconds per step, per GPU")
    ax.set_ylim(0, max(bottom.max(), 1e-12) * 1.05)
    ax.set_title(f"Step breakdown: {context_title(run_context(t) for t in traces)}", fontsize="medium")
    ax.legend(loc="center left", bbox_to_anchor=(1.0, 0.5), fontsize="small")
    return fig


def scaling_table(traces: Iterable[Trace]) -> pd.DataFrame:
    """One row per trace: gpus, step_time_s, tokens_per_s, tokens_per_s_per_gpu, mfu, and what was
    simulated (model, gpu, global_batch, seq_len, micro_batch: run_context), sorted by gpus."""
    rows = []
    for t in traces:
        s = t.summary
        rows.append({"trace": t.path, "gpus": int(s["gpus"]), "step_time_s": float(s["step_time_s"]),
                     "tokens_per_s": float(s["tokens_per_s"]), "tokens_per_s_per_gpu": float(s["tokens_per_s_per_gpu"]),
                     "mfu": float(s["mfu"]), **run_context(t)})
    return pd.DataFrame(rows).sort_values("gpus").reset_index(drop=True)


def scaling_efficiency(table: pd.DataFrame) -> pd.Series:
    """Tokens per second per GPU over the smallest GPU count's (1: linear scaling), per row of `table`
    (columns gpus, tokens_per_s), in the table's order."""
    smallest = table.loc[table["gpus"].idxmin()]
    return (table["tokens_per_s"] / table["gpus"]) / (smallest["tokens_per_s"] / smallest["gpus"])


def plot_scaling(table: pd.DataFrame, context: Optional[str] = None):
    """Throughput against GPU count (with linear scaling from the smallest), and beside it the two
    ratios, in % on an axis from 0: scaling efficiency (scaling_efficiency) and, where the table has
    it, MFU. `table`: scaling_table(), or a sweep table with columns gpus, tokens_per_s and optionally
    mfu. The title names the model, GPU and batch: `context`, else from the table's columns (scaling_table
    has them), else says that the table does not."""
    table = table.sort_values("gpus").reset_index(drop=True)
    if context is None:
        if {"model", "gpu", "global_batch", "seq_len", "micro_batch"} <= set(table.columns):
            context = context_title(table[["model", "gpu", "global_batch", "seq_len", "micro_batch"]]
                                    .astype(object).where(table.notna(), None).to_dict("records"))
        else:
            context = "model, GPU and batch not in the table"
    fig, (left, right) = plt.subplots(1, 2, figsize=(11, 4.3))
    left.plot(table["gpus"], table["tokens_per_s"], "o-", label="simulated")
    base = table.iloc[0]
    left.plot(table["gpus"], base["tokens_per_s"] * table["gpus"] / base["gpus"], "--", color="grey",
              label="linear from the smallest")
    left.set_ylabel("tokens/s")
    left.set_yscale("log")
    left.legend()
    left.set_title("Throughput")
    efficiency = 100 * scaling_efficiency(table)
    right.plot(table["gpus"], efficiency, "o-", color="#55a868", label="scaling efficiency (tokens/s per GPU "
               "against the smallest)")
    top = efficiency.max()
    if "mfu" in table:
        right.plot(table["gpus"], 100 * table["mfu"], "s-", color="#4c72b0", label="MFU")
        top = max(top, 100 * table["mfu"].max())
    right.set_ylim(0, max(100.0, top) * 1.1)  # ratios: from 0, so that a 1 % change looks like one
    right.set_ylabel("%")
    right.legend(loc="lower left", fontsize="small")
    right.set_title("Scaling efficiency and MFU")
    for ax in (left, right):
        ax.set_xscale("log", base=2)
        ax.set_xticks(table["gpus"])
        ax.xaxis.set_major_formatter(mticker.FuncFormatter(lambda v, _: f"{v:,.0f}"))
        ax.xaxis.set_minor_locator(mticker.NullLocator())
        ax.set_xlabel("GPUs")
    fig.suptitle(f"Scaling: {context}", fontsize="medium")
    fig.tight_layout()
    return fig
