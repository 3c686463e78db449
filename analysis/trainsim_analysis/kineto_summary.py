"""breakdown_summary (kineto.py) of Kineto trace folders or files, side by side, from a shell:

    PYTHONPATH=analysis /usr/bin/python3 -m trainsim_analysis.kineto_summary PATH...

PATH: a folder of Kineto traces (`trainsim run --kineto-out DIR`, a profiled job's) or one trace
file. Bad input: one line on stderr, exit status 2.
"""

import sys
from pathlib import Path

from .kineto import breakdown_summary, load_kineto


def summary_lines(paths) -> str:
    """breakdown_summary of each folder or file, one table, named by the path's last part."""
    lines = [f"{'trace':<36}  {'rank':>4}  {'span(us)':>9}  {'idle %':>6}  {'compute %':>9}  {'non-compute %':>13}"
             f"  {'overlap %':>9}"]
    for path in paths:
        for _, r in breakdown_summary(load_kineto(path)).iterrows():
            lines.append(f"{Path(path).name:<36}  {int(r['rank']):>4}  {r['kernel_time(us)']:>9.0f}"
                         f"  {r.idle_time_pctg:>6.2f}  {r.compute_time_pctg:>9.2f}  {r.non_compute_time_pctg:>13.2f}"
                         f"  {r.comp_comm_overlap_pctg:>9.2f}")
    return "\n".join(lines) + "\n"


def main(argv) -> int:
    if not argv or argv[0] in ("-h", "--help"):
        print("usage: python3 -m trainsim_analysis.kineto_summary PATH...  (a folder of Kineto traces or one trace file)")
        return 0 if argv else 2
    try:
        sys.stdout.write(summary_lines(argv))
    except (OSError, ValueError) as e:
        print(f"trainsim_analysis.kineto_summary: {e}", file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
