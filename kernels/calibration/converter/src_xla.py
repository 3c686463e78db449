"""openxla/xla default_matmul_perf_table: measured:xla (convert_public.py's docstring)."""

import math
import os

from .rows import PATHS, gemm_row, read_csv
from .refs import SM90_FP8_PEAK

XLA_DTYPES = {"bf16xbf16->bf16": "bf16", "f32xf32->f32": "tf32", "f8e4m3fnxf8e4m3fn->bf16": "fp8"}


def xla_entries(section):
    """{(dtype, b, m, n, k): seconds} of one section of the XLA extract."""
    out = {}
    for r in read_csv(os.path.join(PATHS["sources"], "openxla-xla", "default_matmul_perf_table.csv")):
        if r["section"] != section:
            continue
        b, m, n, k = (int(r[c]) for c in ("b", "m", "n", "k"))
        for key, dtype in XLA_DTYPES.items():
            out[(dtype, b, m, n, k)] = 2 * b * m * n * k / int(r[key])
    if not out:
        raise SystemExit("convert_public.py: no XLA section %s" % section)
    return out


def xla_rows(section, dtypes, entries=None):
    """Rows of XLA's measured GEMMs of `section` in `dtypes` (tf32 at batch 1 only); `entries`:
    that section's xla_entries when the caller has read them already."""
    rows = []
    for (dtype, b, m, n, k), t in sorted((entries or xla_entries(section)).items()):
        if dtype in dtypes and (dtype != "tf32" or b == 1):
            rows.append(gemm_row(dtype, m, n, k, b, t, "measured:xla"))
    return rows


def check_sm90_fp8_is_unusable():
    """public.md D4: the sm_90 fp8 rates exceed the H100's fp8 peak. Stop if that changes, so
    that the rule 'do not use them' is revisited rather than silently kept."""
    best = max(2 * b * m * n * k / t for (d, b, m, n, k), t in xla_entries("sm_90").items() if d == "fp8")
    if best <= SM90_FP8_PEAK:
        raise SystemExit("convert_public.py: the sm_90 fp8 rows no longer exceed the H100 fp8 peak; revisit")
    return best



XLA_GRID = [256, 512, 1024, 2048, 4096]  # XLA's m, n and k (every combination, batches 1, 2, 4)


def xla_log_interp(m, n, k, log_value):
    """log_value(m_i, n_i, k_i) interpolated log-linearly in (log2 m, log2 n, log2 k) between
    XLA's grid points, each coordinate clamped to the grid (256..4096)."""
    def bracket(x):
        x = min(max(x, XLA_GRID[0]), XLA_GRID[-1])
        for lo, hi in zip(XLA_GRID, XLA_GRID[1:]):
            if x <= hi:
                return lo, hi, (math.log2(x) - math.log2(lo)) / (math.log2(hi) - math.log2(lo))
        raise AssertionError(x)
    (m0, m1, fm), (n0, n1, fn), (k0, k1, fk) = bracket(m), bracket(n), bracket(k)
    total = 0.0
    for mi, wm in ((m0, 1 - fm), (m1, fm)):
        for ni, wn in ((n0, 1 - fn), (n1, fn)):
            for ki, wk in ((k0, 1 - fk), (k1, fk)):
                if wm * wn * wk > 0:
                    total += wm * wn * wk * log_value(mi, ni, ki)
    return total


def xla_fp8_ratio(entries, m, n, k, batch=4):
    """fp8 time over bf16 time of XLA's measured rows (one section's xla_entries) at batch
    `batch`, interpolated log-linearly in (log2 m, log2 n, log2 k), each clamped to XLA's grid
    (a shape beyond 4096 takes the edge's ratio, where large shapes approach the MAMF ratio)."""
    return math.exp(xla_log_interp(m, n, k, lambda mi, ni, ki: math.log(entries[("fp8", batch, mi, ni, ki)] /
                                                                        entries[("bf16", batch, mi, ni, ki)])))


def xla_rate(entries, dtype, batch, m, n, k):
    """FLOP/s of XLA's measured `dtype` rows at batch `batch`, interpolated as xla_log_interp
    (a coordinate beyond the grid takes the edge's rate)."""
    def log_rate(mi, ni, ki):
        return math.log(2 * batch * mi * ni * ki / entries[(dtype, batch, mi, ni, ki)])
    return math.exp(xla_log_interp(m, n, k, log_rate))
