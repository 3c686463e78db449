#!/usr/bin/env python3
"""The validation table: every scenario of this folder with a published figure, simulated.

Each scenario names its published figure in a line `# published_<metric> = N`
(`tflops_per_gpu`: Megatron-LM's eq. 3 FLOPs with recomputation, attention in full, which
trainsim reports as hardware_tflops_per_gpu_full_attention; `tokens_per_s_per_gpu`;
`model_tflops_per_gpu`; `step_time_s`, MLPerf's logged step time). This runs
`trainsim run FILE --json` on each and prints one Markdown table per GPU type, and one for
MLPerf Training's rows (`mlperf-*.ini`), with the error and the mean absolute error of each
table: what README.md and this folder's README.md show. The error is the throughput's,
positive when trainsim runs faster than published; for a step time, published / simulated - 1. With --check DOC it prints nothing and fails (exit 1) when a row of DOC's tables
disagrees with this build (CTest: Docs.ValidationTableIsCurrent).

    python3 scenarios/validation/table.py [--trainsim build/trainsim] [--check README.md]

Standard library only.
"""

import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
METRICS = {
    "tflops_per_gpu": ("hardware_tflops_per_gpu_full_attention", "TFLOP/s/GPU"),
    "tokens_per_s_per_gpu": ("tokens_per_s_per_gpu", "tokens/s/GPU"),
    "model_tflops_per_gpu": ("model_tflops_per_gpu", "model TFLOP/s/GPU"),
    "step_time_s": ("step_time_s", "s a step"),
}
TIMES = {"step_time_s"}  # lower is faster: the error is published / simulated - 1
# MLPerf Training's logged runs (public.md A4), a group of their own whatever the GPU.
MLPERF_PREFIX = "mlperf-"
MLPERF_TITLE = ("MLPerf Training: NVIDIA's submissions, v3.1 on Eos DGX H100, v5.1 on Tyche "
                "GB200 NVL72; step times, the error in throughput (published / simulated step - 1)")
GPU_TITLES = {
    "a100-80g": "A100 80GB (Megatron-LM, Narayanan et al. SC21 Table 1)",
    "h100-sxm": "H100 SXM (NeMo / Megatron-Bridge 25.11, DGX-H100)",
    "b200": "B200 (NeMo / Megatron-Bridge 25.11, DGX-B200)",
}
# Files with a "# check: " line: same-stack measurements of a mechanism (public.md D5), shown
# in groups of their own and never in a throughput row's table.
CHECK_TITLES = {
    "h100-sxm": "H100 SXM, mixture of experts: same-stack measurements (Megatron-Bridge SKILL.md @ 067f987d, Megatron-LM moe_recipes @ d48bd6be; checks, not fitted)",
    "b200": "B200, mixture of experts: same-stack measurements (Megatron-Bridge#4439; checks, not fitted)",
    "gb200": "GB200 NVL72, mixture of experts: same-stack measurements (Megatron-LM moe_recipes @ d48bd6be; checks, not fitted)",
}


def header(path):
    """(metric, published value) of the file's "# published_<metric> = N" line, or None; and
    whether it is a same-stack check (a "# check: " line). One read of the file."""
    figure, check = None, False
    with open(path, encoding="utf-8") as f:
        for line in f:
            m = re.match(r"# published_(\w+) = ([0-9.]+)", line)
            if m and m.group(1) in METRICS and figure is None:
                figure = m.group(1), float(m.group(2))
            check = check or line.startswith("# check: ")
    return figure, check


def resolved(trainsim, path):
    """{section.key: value} of `trainsim check`."""
    out = subprocess.run([trainsim, "check", path], check=True, capture_output=True, text=True).stdout
    keys, section = {}, ""
    for line in out.splitlines():
        if line.startswith("["):
            section = line.strip("[]")
        elif " = " in line and not line.startswith("#"):
            k, v = line.split(" = ", 1)
            keys[section + "." + k] = v
    return keys


def rows(trainsim):
    out = []
    for name in sorted(os.listdir(HERE), key=lambda n: (len(n), n)):
        if not name.endswith(".ini"):
            continue
        path = os.path.join(HERE, name)
        figure, is_check = header(path)
        if figure is None:
            continue
        kind, value = figure
        keys = resolved(trainsim, path)
        result = json.loads(subprocess.run([trainsim, "run", path, "--json"], check=True, capture_output=True,
                                           text=True).stdout)
        simulated = result[METRICS[kind][0]]
        moe = int(keys["model.experts"]) > 1
        out.append({
            "file": name,
            "gpu": keys["cluster.gpu"],
            "model": keys["model.preset"] if keys.get("model.preset") else name,
            "moe": moe,
            "check": is_check,
            "gpus": result["gpus"],
            "layout": "TP %s PP %s CP %s EP %s" % (keys["parallel.tp"], keys["parallel.pp"], keys["parallel.cp"],
                                                  keys["parallel.ep"]),
            "kind": kind,
            "unit": METRICS[kind][1],
            "published": value,
            "simulated": simulated,
            "error": value / simulated - 1 if kind in TIMES else simulated / value - 1,
        })
    return sorted(out, key=lambda r: (r["gpus"], r["file"]))


def number(v, kind=None):
    if kind in TIMES:
        return "%.4f" % v if v < 1 else "%.3f" % v
    if v == int(v):
        return "%d" % v
    return "%.1f" % v if v < 1000 else "%.0f" % v


def tables(all_rows):
    text = []
    groups = []
    for gpu in GPU_TITLES:
        for moe in (False, True):
            group = [r for r in all_rows
                     if r["gpu"] == gpu and r["moe"] == moe and not r["check"] and not r["file"].startswith(MLPERF_PREFIX)]
            if group:
                groups.append((GPU_TITLES[gpu] + (", mixture of experts" if moe else ""), group))
    for gpu, title in CHECK_TITLES.items():
        group = [r for r in all_rows if r["gpu"] == gpu and r["check"]]
        if group:
            groups.append((title, group))
    mlperf = sorted((r for r in all_rows if r["file"].startswith(MLPERF_PREFIX)),
                    key=lambda r: (r["gpu"], r["gpus"], r["file"]))
    if mlperf:
        groups.append((MLPERF_TITLE, mlperf))
    for title, group in groups:
        text.append("**%s**\n" % title)
        text.append("| scenario | GPUs | layout | published | simulated | error |")
        text.append("|---|---:|---|---:|---:|---:|")
        for r in group:
            text.append("| `%s` | %d | %s | %s %s | %s | %+.1f %% |" % (r["file"], r["gpus"], r["layout"],
                                                                     number(r["published"], r["kind"]), r["unit"],
                                                                     number(r["simulated"], r["kind"]), 100 * r["error"]))
        mape = sum(abs(r["error"]) for r in group) / len(group)
        text.append("\nMean absolute error %.1f %% over %d rows.\n" % (100 * mape, len(group)))
    return "\n".join(text)


def check(doc, all_rows):
    """Every row of `all_rows` appears in `doc` as this build prints it."""
    with open(doc, encoding="utf-8") as f:
        text = f.read()
    missing = [line for line in tables(all_rows).splitlines() if line.startswith("| `") and line not in text]
    for line in missing:
        print("%s: not current: %s" % (doc, line), file=sys.stderr)
    return not missing


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainsim", default=os.path.join(ROOT, "build", "trainsim"))
    parser.add_argument("--check", metavar="DOC", action="append", default=[])
    args = parser.parse_args()
    if not os.access(args.trainsim, os.X_OK):
        print("table.py: %s: no trainsim executable (build it, or give --trainsim)" % args.trainsim, file=sys.stderr)
        return 2
    all_rows = rows(args.trainsim)
    if args.check:
        return 0 if all(check(doc, all_rows) for doc in args.check) else 1
    print(tables(all_rows))
    return 0


if __name__ == "__main__":
    sys.exit(main())
