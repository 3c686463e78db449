#!/usr/bin/env python3
"""Checks the arithmetic of scenarios/validation/fit_host_stack.py (run by CTest as
FitHostStack.Arithmetic; standard library only, runs no simulation): its grid, table.py's error
sign, the mean absolute error, its groups and the choice of the least error.

    python3 tests/cli/fit_host_stack_test.py
"""

import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.dont_write_bytecode = True
sys.path.insert(0, os.path.join(ROOT, "scenarios", "validation"))
import fit_host_stack as fit  # noqa: E402


def check(failures, what, got, want):
    if isinstance(want, float) and isinstance(got, float) and abs(got - want) < 1e-12:
        return
    if got != want:
        failures.append("%s: got %r, want %r" % (what, got, want))


def main():
    failures = []
    # 1.0 .. 3.0 by 0.1: 21 factors, both ends, no floating-point drift.
    g = fit.grid(1.0, 3.0, 0.1)
    check(failures, "grid length", len(g), 21)
    check(failures, "grid ends", (g[0], g[-1]), (1.0, 3.0))
    check(failures, "grid step", g[13], 2.3)
    check(failures, "one-point grid", fit.grid(2.2, 2.2, 0.1), [2.2])
    for bad in ((1.0, 3.0, 0.0), (3.0, 1.0, 0.1)):
        try:
            fit.grid(*bad)
            failures.append("grid%r: no error" % (bad,))
        except ValueError:
            pass
    # The throughput's error: faster than published is positive, also for a step time.
    check(failures, "throughput error", fit.error("tokens_per_s_per_gpu", 100.0, 120.0), 0.2)
    check(failures, "step time error", fit.error("step_time_s", 2.0, 1.6), 0.25)
    check(failures, "mean absolute", fit.mean_absolute([0.1, -0.3, 0.2]), 0.2)
    # The least overall error wins; of equals, the smallest factor.
    check(failures, "best", fit.best([1.0, 1.1, 1.2], [0.3, 0.1, 0.2]), 1.1)
    check(failures, "best of equals", fit.best([1.0, 1.1, 1.2], [0.3, 0.1, 0.1]), 1.1)
    # table.py's groups.
    check(failures, "MLPerf group", fit.group_of("b200", False, False, "mlperf-gb200-llama3.1-8b-72.ini"), "MLPerf")
    check(failures, "check group", fit.group_of("h100-sxm", True, True, "d5-h100-x.ini"), "h100-sxm checks")
    check(failures, "MoE group", fit.group_of("b200", True, False, "a3-b200-x.ini"), "b200 MoE")
    check(failures, "dense group", fit.group_of("a100-80g", False, False, "megatron-1.7b.ini"), "a100-80g dense")
    for f in failures:
        print("fit_host_stack_test: " + f, file=sys.stderr)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
