#!/usr/bin/env python3
"""Trims a PyTorch profiler (Kineto) trace to one profiler step, keeping it a valid trace.

    python3 tests/data/profiles/trim_trace.py IN.json.gz OUT.json.gz 'ProfilerStep#1011'

Keeps, unchanged (nothing is edited, only left out):
  - every top-level key (deviceProperties, distributedInfo, ...) but traceEvents;
  - every metadata event (ph "M": process and thread names);
  - the CPU-side events (cpu_op, user_annotation, cuda_runtime, ...) of the step's process
    that start inside the named step's [ts, ts + dur];
  - the GPU events (kernel, gpu_memcpy, gpu_memset) whose args.correlation is that of a kept
    runtime event, wherever on the GPU timeline they ran;
  - flow events (ph "s"/"f") whose both ends are kept (launch flows by their correlation id,
    others by time), and the profiler's "Trace" span.
Standard library only; the output is gzip with mtime 0, so the same input gives the same bytes.
"""
import gzip
import json
import sys

GPU_CATS = {"kernel", "gpu_memcpy", "gpu_memset"}
LAUNCH_FLOW_CATS = {"ac2g", "async_cpu_to_gpu"}


def main(src, dst, step_name):
    with gzip.open(src, "rt") as f:
        trace = json.load(f)
    events = trace["traceEvents"]
    steps = [e for e in events if e.get("ph") == "X" and e.get("name") == step_name]
    if len(steps) != 1:
        sys.exit("%s: %d events named %r (want 1)" % (src, len(steps), step_name))
    step = steps[0]
    start, end, pid = step["ts"], step["ts"] + step["dur"], step["pid"]

    def cpu_side(e):
        return e.get("pid") == pid and start <= e.get("ts", -1) <= end

    kept, correlations = [], set()
    for e in events:
        if e.get("ph") == "X" and e.get("cat") not in GPU_CATS and cpu_side(e):
            kept.append(e)
            if "correlation" in e.get("args", {}):
                correlations.add(e["args"]["correlation"])
    for e in events:
        ph, cat = e.get("ph"), e.get("cat")
        if ph == "M" or cat == "Trace":
            kept.append(e)
        elif ph == "X" and cat in GPU_CATS and e.get("args", {}).get("correlation") in correlations:
            kept.append(e)
    flows = {}
    for e in events:
        if e.get("ph") in ("s", "f"):
            flows.setdefault((e.get("cat"), e.get("id")), []).append(e)
    for (cat, fid), ends in flows.items():
        whole = fid in correlations if cat in LAUNCH_FLOW_CATS else all(cpu_side(x) for x in ends)
        if whole:
            kept.extend(ends)
    order = {id(e): i for i, e in enumerate(events)}
    kept.sort(key=lambda e: order[id(e)])  # the input's order
    out = {k: v for k, v in trace.items() if k != "traceEvents"}
    out["traceEvents"] = kept
    with open(dst, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0, filename="") as f:
        f.write(json.dumps(out, separators=(",", ":")).encode())
    print("%s: %d of %d events kept" % (dst, len(kept), len(events)))


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    main(*sys.argv[1:])
