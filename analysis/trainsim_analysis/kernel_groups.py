"""A measured MoE layer's GPU kernels beside `trainsim layer --json`, group by group.

A PyTorch profiler trace (Chrome JSON, `.json` or `.json.gz`) whose host code marks each
stretch of a layer with a user annotation naming the block and the pass: `attn(F)`, `mlp(B)`,
`dispatch(F)`, `combine(W)` and so on, as DeepSeek's published training profile does
(deepseek-ai/profile-data `train.json`: one DualPipe forward chunk and one backward chunk of
4 MoE layers each). Each kernel belongs to the annotation its launch ran in (the launch's
`correlation` id), and to a group by its name (KERNEL_RULES); the ops of `trainsim layer` fall
into the same groups by theirs (OP_RULES). The trace's sums are per layer: divided by the
layers the chunk holds.

Kernel time, not wall time: where the trace ran two chunks at once on two streams (DualPipe),
each kernel's duration includes what the other took from it.
"""

import gzip
import json
import re
from collections import defaultdict
from pathlib import Path
from typing import Dict, List, Tuple, Union

import pandas as pd

#: the comparison's groups, in the order the table lists them
GROUPS = [
    "attention",
    "attention GEMMs",
    "MLP GEMMs",
    "fp8 casts",
    "norms",
    "other compute",
    "all-to-all kernels",
]

#: (group, pattern on the kernel name); the first match wins. GEMMs are told apart by the
#: block they ran in (attention or MLP), not by their names.
KERNEL_RULES: List[Tuple[str, str]] = [
    ("all-to-all kernels", r"dpsk::ep::|deep_ep|internode::|intranode::"),
    ("attention", r"flash|fmha|cudnn.*attn"),
    ("fp8 casts", r"cast|transpose|quantize"),
    ("GEMM", r"gemm|Gemm|cutlass|xmma|sm90_"),
    ("norms", r"layer_norm|rms_?norm|LayerNorm"),
]

#: (group, pattern on a trainsim op's name); the first match wins; the rest is other compute.
OP_RULES: List[Tuple[str, str]] = [
    ("fp8 casts", r"\.quantize"),
    ("attention", r"^attention(\.bwd)?$|^attention\.window"),
    ("attention GEMMs", r"^(qkv|q|kv|q\.down|q\.up|kv\.down|kv\.up|attention\.proj|router)(\.dgrad|\.wgrad)?$"),
    ("MLP GEMMs", r"^(experts|shared_experts|mlp)\.(up|down)(\.dgrad|\.wgrad)?$"),
    ("norms", r"\.norm(\.bwd)?$"),
]

#: the passes a block annotation's suffix names: forward, input gradient, weight gradient
PASS_OF = {"F": "forward", "B": "backward", "W": "backward"}


def read_profiler_trace(path: Union[str, Path]) -> dict:
    path = Path(path)
    opener = gzip.open if path.suffix == ".gz" else open
    with opener(path, "rt") as f:
        data = json.load(f)
    if "traceEvents" not in data:
        raise ValueError(f"{path}: no traceEvents: not a PyTorch profiler trace")
    return data


def kernel_group(name: str, block: str) -> str:
    for group, pattern in KERNEL_RULES:
        if re.search(pattern, name):
            if group == "GEMM":
                return "attention GEMMs" if block == "attn" else "MLP GEMMs"
            return group
    return "other compute"


def op_group(name: str) -> str:
    for group, pattern in OP_RULES:
        if re.search(pattern, name):
            return group
    return "other compute"


def trace_groups(trace: dict, layers: int) -> pd.DataFrame:
    """Per group and pass (forward, backward), the kernels' seconds and count per layer of the
    annotated chunk; kernels launched outside every block annotation are left out."""
    events = trace["traceEvents"]
    blocks = sorted(
        (e for e in events if e.get("cat") == "user_annotation" and re.fullmatch(r"\w+\([FBW]\)", e.get("name", ""))),
        key=lambda e: e["ts"],
    )
    launches = {e["args"]["correlation"]: e["ts"] for e in events
                if e.get("cat") == "cuda_runtime" and "correlation" in e.get("args", {})}
    seconds: Dict[Tuple[str, str], float] = defaultdict(float)
    kernels: Dict[Tuple[str, str], int] = defaultdict(int)
    for k in events:
        if k.get("cat") != "kernel":
            continue
        launched = launches.get(k.get("args", {}).get("correlation"))
        if launched is None:
            continue
        block = next((b for b in blocks if b["ts"] <= launched <= b["ts"] + b["dur"]), None)
        if block is None:
            continue
        name, suffix = block["name"][:-3], block["name"][-2]
        key = (kernel_group(k["name"], name), PASS_OF[suffix])
        seconds[key] += k["dur"] * 1e-6 / layers
        kernels[key] += 1
    rows = [{"group": g, "pass": p, "trace_s": seconds[(g, p)], "trace_kernels": kernels[(g, p)] / layers}
            for g in GROUPS for p in ("forward", "backward")]
    return pd.DataFrame(rows)


def layer_groups(layer_json: dict) -> pd.DataFrame:
    """Per group and pass, the seconds and kernels `trainsim layer --json` charges one layer
    (recomputation left out: the trace's chunks recompute nothing of what they show)."""
    seconds: Dict[Tuple[str, str], float] = defaultdict(float)
    kernels: Dict[Tuple[str, str], int] = defaultdict(int)
    for op in layer_json["ops"]:
        if op["pass"] == "recompute":
            continue
        key = (op_group(op["op"]), op["pass"])
        seconds[key] += op["time_s"]
        kernels[key] += op.get("kernels", 1)
    rows = [{"group": g, "pass": p, "trainsim_s": seconds[(g, p)], "trainsim_kernels": kernels[(g, p)]}
            for g in GROUPS for p in ("forward", "backward")]
    return pd.DataFrame(rows)


def compare(trace: dict, layers: int, layer_json: dict) -> pd.DataFrame:
    """The two side by side, with trainsim / trace per row (NaN where the trace has nothing)."""
    t = trace_groups(trace, layers).merge(layer_groups(layer_json), on=["group", "pass"])
    t["ratio"] = t.trainsim_s / t.trace_s.where(t.trace_s > 0)
    return t


def markdown(table: pd.DataFrame) -> str:
    lines = ["| group | pass | trace (us) | trace kernels | trainsim (us) | trainsim kernels | trainsim / trace |",
             "|---|---|---:|---:|---:|---:|---:|"]
    for _, r in table.iterrows():
        if r.trace_s == 0 and r.trainsim_s == 0:
            continue
        ratio = "" if pd.isna(r.ratio) else f"{r.ratio:.2f}"
        lines.append(f"| {r.group} | {r['pass']} | {r.trace_s * 1e6:.0f} | {r.trace_kernels:g} "
                     f"| {r.trainsim_s * 1e6:.0f} | {r.trainsim_kernels} | {ratio} |")
    compute = table[table.group != "all-to-all kernels"]
    lines.append(f"| compute | both | {compute.trace_s.sum() * 1e6:.0f} | {compute.trace_kernels.sum():g} "
                 f"| {compute.trainsim_s.sum() * 1e6:.0f} | {compute.trainsim_kernels.sum()} "
                 f"| {compute.trainsim_s.sum() / compute.trace_s.sum():.2f} |")
    return "\n".join(lines)


def main(argv=None) -> int:
    import argparse
    import sys

    parser = argparse.ArgumentParser(description="A profiled MoE layer's kernels beside trainsim layer --json, by group")
    parser.add_argument("trace", help="PyTorch profiler trace (.json or .json.gz) with block annotations")
    parser.add_argument("layer_json", help="the output of trainsim layer SCENARIO --json")
    parser.add_argument("--layers", type=int, required=True, help="layers each annotated chunk of the trace holds")
    args = parser.parse_args(argv)
    if args.layers < 1:
        print(f"--layers {args.layers}: must be at least 1", file=sys.stderr)
        return 2
    try:
        trace = read_profiler_trace(args.trace)
        layer = json.loads(Path(args.layer_json).read_text())
        if "ops" not in layer:
            raise ValueError(f"{args.layer_json}: no 'ops': not the output of trainsim layer --json")
    except (OSError, ValueError) as e:
        print(f"kernel_groups: {e}", file=sys.stderr)
        return 2
    print(markdown(compare(trace, args.layers, layer)))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
