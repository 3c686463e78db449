"""A table's text: header (sources, rules) and rows."""

import os

from .refs import B200_SOURCE_RULES, REFS, RULES
from .rows import GPUS


def fmt(x):
    return "%.9g" % x


def fmt_count(x):
    return "%d" % x if float(x).is_integer() and abs(x) < 1e18 else "%.9g" % x


def table_text(name, rows, refs):
    gpu = GPUS[name]
    measured = sum(1 for r in rows if r.origin.startswith("measured:"))
    used_rules = sorted({r.origin.split(":", 1)[1] for r in rows if r.origin.startswith("derived:")})
    sources = sorted({REFS[key][0] for key, _ in refs})
    lines = [
        "# gpu: %s (converted)" % gpu["name"],
        "# trainsim_gpu: %s" % name,
        "# compute_capability: %s" % gpu["cc"],
        "# source: converted from public measurements (%s); rows no measurement covers are derived; "
        "the origin column says which" % ", ".join(sources),
        "# generator: kernels/calibration/convert_public.py (python3 kernels/calibration/convert_public.py)",
        "# note: kernel times only, no end-to-end factor. A table trainsim-calibrate measures on the GPU "
        "(source: measured) replaces this one.",
        "# rows: %d, measured %d, derived %d" % (len(rows), measured, len(rows) - measured),
    ]
    for key, what in refs:
        repo, path, commit, license_name = REFS[key]
        if commit is None:  # figures read from a pull request's description (converter/public_figures.py)
            lines.append("# ref %s: %s %s, figures only %s (%s)" % (key, repo, path, license_name, what))
        else:
            lines.append("# ref %s: %s %s @%s %s (%s)" % (key, repo, path, commit, license_name, what))
    for rule, text in (B200_SOURCE_RULES if name == "b200" else []):
        lines.append("# rule %s: %s" % (rule, text))
    for rule in used_rules:
        lines.append("# rule derived:%s: %s" % (rule, RULES[rule]))
    lines.append("kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin")
    for r in rows:
        lines.append(",".join([r.kernel, r.dtype, fmt_count(r.m), fmt_count(r.n), fmt_count(r.k),
                               fmt_count(r.batch), fmt(r.time_s), fmt_count(r.flops), fmt_count(r.bytes),
                               "%.6g" % (r.flops / r.time_s / 1e12), "%.6g" % (r.bytes / r.time_s / 1e9),
                               r.origin]))
    return "\n".join(lines) + "\n"


def is_measured(path):
    """True if `path` is a table trainsim-calibrate measured: never overwrite one."""
    if not os.path.exists(path):
        return False
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                return False
            key, _, value = line[1:].partition(":")
            if key.strip().lower() == "source":
                return value.strip().lower().startswith("measured")
    return False


