#!/usr/bin/env python3
"""The fit of training.host_stack_factor's default (topologies/host_cost.cpp): every throughput
row of this folder (the set table.py shows: public.md A1, A2, A3, A4, D5; dense and MoE, x86 and
Grace hosts) run at each factor of a grid with `--set training.host_stack_factor=F`, and per
factor the mean absolute error in throughput over all rows and over each of table.py's groups.
It prints one Markdown table, then the factor with the least mean absolute error over all rows
(the first of equals, the smallest factor): the value of k_megatron_stack_over_trace; then each
row's error at the grid's first factor and at that one. About 6 minutes of CPU (12 wall minutes
with --jobs 2 on a loaded 2-core machine) for the 21 factors of the default grid.

    python3 scenarios/validation/fit_host_stack.py [--trainsim build/trainsim]
        [--from 1.0] [--to 3.0] [--step 0.1] [--jobs N]

The error is table.py's: the throughput's, positive when trainsim runs faster than published.
Standard library only; its arithmetic is checked by tests/cli/fit_host_stack_test.py.
"""

import argparse
import concurrent.futures
import json
import os
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.dont_write_bytecode = True
sys.path.insert(0, HERE)
import table  # noqa: E402

KEY = "training.host_stack_factor"


def grid(start, stop, step):
    """start, start + step, ... up to stop (inclusive), each rounded to 6 decimals: no drift."""
    if step <= 0 or stop < start:
        raise ValueError("expected step > 0 and to >= from")
    count = int(round((stop - start) / step))
    return [round(start + i * step, 6) for i in range(count + 1)]


def error(kind, published, simulated):
    """table.py's error: the throughput's; for a step time, published / simulated - 1."""
    return published / simulated - 1 if kind in table.TIMES else simulated / published - 1


def group_of(gpu, moe, check, name):
    """table.py's group of a row: MLPerf's rows, a GPU's same-stack checks, or GPU x dense/MoE."""
    if name.startswith(table.MLPERF_PREFIX):
        return "MLPerf"
    if check:
        return gpu + " checks"
    return gpu + (" MoE" if moe else " dense")


def mean_absolute(errors):
    return sum(abs(e) for e in errors) / len(errors)


def best(factors, overall):
    """The factor of the least overall mean absolute error; the smallest of equals."""
    return min(zip(overall, factors))[1]


def scenarios(trainsim):
    """(file, path, kind, published, group) of every scenario with a published figure."""
    out = []
    for name in sorted(os.listdir(HERE)):
        if not name.endswith(".ini"):
            continue
        path = os.path.join(HERE, name)
        figure, is_check = table.header(path)
        if figure is None:
            continue
        keys = table.resolved(trainsim, path)
        group = group_of(keys["cluster.gpu"], int(keys["model.experts"]) > 1, is_check, name)
        out.append((name, path, figure[0], figure[1], group))
    return out


def simulate(trainsim, path, kind, factor):
    run = subprocess.run([trainsim, "run", path, "--json", "--set", "%s=%s" % (KEY, factor)], check=True,
                         capture_output=True, text=True)
    return json.loads(run.stdout)[table.METRICS[kind][0]]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--trainsim", default=os.path.join(table.ROOT, "build", "trainsim"))
    parser.add_argument("--from", dest="start", type=float, default=1.0)
    parser.add_argument("--to", dest="stop", type=float, default=3.0)
    parser.add_argument("--step", type=float, default=0.1)
    parser.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    if not os.access(args.trainsim, os.X_OK):
        print("fit_host_stack.py: %s: no trainsim executable (build it, or give --trainsim)" % args.trainsim,
              file=sys.stderr)
        return 2
    try:
        factors = grid(args.start, args.stop, args.step)
    except ValueError as e:
        print("fit_host_stack.py: --from/--to/--step: %s" % e, file=sys.stderr)
        return 2
    rows = scenarios(args.trainsim)
    groups = sorted({r[4] for r in rows})
    with concurrent.futures.ThreadPoolExecutor(max_workers=max(1, args.jobs)) as pool:
        jobs = {(f, r[0]): (r, pool.submit(simulate, args.trainsim, r[1], r[2], f)) for f in factors for r in rows}
        errors = {key: error(r[2], r[3], job.result()) for key, (r, job) in jobs.items()}
    print("| factor | all (%d rows) | %s |" % (len(rows), " | ".join("%s (%d)" % (g, sum(r[4] == g for r in rows))
                                                            for g in groups)))
    print("|---:|---:|%s" % ("---:|" * len(groups)))
    overall = []
    for f in factors:
        overall.append(mean_absolute([errors[(f, r[0])] for r in rows]))
        per_group = [mean_absolute([errors[(f, r[0])] for r in rows if r[4] == g]) for g in groups]
        print("| %.2f | %.1f %% | %s |" % (f, 100 * overall[-1], " | ".join("%.1f %%" % (100 * m) for m in per_group)))
    chosen = best(factors, overall)
    print("\nLeast mean absolute error over all %d rows: %.1f %% at factor %.2f." %
          (len(rows), 100 * min(overall), chosen))
    print("\n| scenario | group | error at %.2f | error at %.2f |" % (factors[0], chosen))
    print("|---|---|---:|---:|")
    for r in sorted(rows, key=lambda r: (r[4], r[0])):
        print("| `%s` | %s | %+.1f %% | %+.1f %% |" % (r[0], r[4], 100 * errors[(factors[0], r[0])],
                                                      100 * errors[(chosen, r[0])]))
    return 0


if __name__ == "__main__":
    sys.exit(main())
