"""NVFP4 and MXFP8 GEMM rows, and the Blackwell Ultra (B300, GB300) GEMM rows from Blackwell
Ultra's own measurements (public_figures.py; rules in refs.RULES).

A low-precision GEMM's gain over BF16 depends on its size: small GEMMs are bound by launch,
memory and tile quantisation, and gain little or lose (B200 NVFP4 at 1024^3: 5.87 us against
BF16's 5.08, pytorch/ao#2427), large ones approach the tensor cores' ratio. So a format's time
over BF16's is a measured curve of the GEMM's size, side = (m n k)^(1/3) (the cube of the same
FLOPs), log-linear in log(side) between the measured points and held at the ends:

  B200 nvfp4  pytorch/ao#2427: NVFP4 / BF16 time of the same benchmark, 1024^3 .. 8192^3.
  B200 fp8    XLA's measured fp8/bf16 ratio at the shape (clamped to its 256..4096 grid), never
              below the B200 MAMF ratio (refs: b200-xla-fp8-ratio).
  B200 mxfp8  no benchmark times MXFP8 and BF16 together on B200 (flashinfer#2464's MXFP8 rows
              are kept as measured, but over another benchmark's BF16 they would mix two
              clocks), so the sibling die's: B200's fp8 curve raised to the power that makes it
              Transformer Engine's measured B300 MXFP8/BF16 kernel ratio (0.547) at TE's GEMMs,
              MXFP8 there 1.05x TE's per-tensor FP8 (7.161 against 6.812 ms).
  B300        Transformer Engine's kernel-only per-layer ratio at its shapes (NVFP4 3.764 / MXFP8
              7.161 / FP8 6.812 over BF16 13.102 ms) carried to other sizes along B200's curve:
              r_B300(side) = r_B200(side) ** a, a = ln(R_TE) / ln(r_B200 at TE's GEMMs), so the
              gain vanishes where B200's does and equals the measured one at TE's size.
"""

import math
import statistics

from . import public_figures as fig
from .refs import BLACKWELL_MAMF
from .rows import gemm_row
from .src_xla import xla_fp8_ratio

FORMATS = ("fp8", "mxfp8", "nvfp4")


def side(m, n, k):
    return (m * n * k) ** (1.0 / 3.0)


def interp_log(points, x):
    """y at x from [(x, y)] (x ascending), linear in log x and log y, held beyond the ends."""
    if x <= points[0][0]:
        return points[0][1]
    for (x0, y0), (x1, y1) in zip(points, points[1:]):
        if x <= x1:
            f = (math.log(x) - math.log(x0)) / (math.log(x1) - math.log(x0))
            return math.exp(math.log(y0) + f * (math.log(y1) - math.log(y0)))
    return points[-1][1]


def ao_bf16_time(m, n, k):
    """B200 BF16 seconds of an m x n x k GEMM at ao#2427's measured rate for its side."""
    rate = interp_log([(s, 2.0 * s ** 3 / t) for s, t, _ in fig.AO_B200_NVFP4_CUBES], side(m, n, k))
    return 2.0 * m * n * k / rate


def nvfp4_ratio_points():
    """[(side, NVFP4 time / BF16 time)] measured on B200 in one benchmark (ao#2427)."""
    return [(s, t4 / t16) for s, t16, t4 in fig.AO_B200_NVFP4_CUBES]


class FormatRatios:
    """Time of a GEMM in a low-precision format over its BF16 time, per GPU (module docstring)."""

    def __init__(self, xla_b200):
        self.xla = xla_b200
        self.nvfp4 = nvfp4_ratio_points()
        self.fp8_floor = BLACKWELL_MAMF["b200"]["bf16"] / BLACKWELL_MAMF["b200"]["fp8"]
        self.mxfp8_exponent = 1.0
        self.mxfp8_exponent = self._exponent_at_te("mxfp8", "fp8")
        self.exponent = {fmt: self._exponent_at_te(fmt, fmt) for fmt in FORMATS}

    def b200(self, fmt, m, n, k, batch=1):
        if fmt == "fp8":
            return max(self.fp8_floor, xla_fp8_ratio(self.xla, m, n, k, batch=4 if batch > 1 else 1))
        if fmt == "mxfp8":
            return self.b200("fp8", m, n, k, batch) ** self.mxfp8_exponent
        return interp_log(self.nvfp4, side(m, n, k))

    def te_ratio(self, fmt):
        """Transformer Engine's measured kernel-only layer time in `fmt` over BF16's (B300)."""
        return sum(fig.TE_B300_PASS_MS[fmt].values()) / sum(fig.TE_B300_PASS_MS["bf16"].values())

    def _exponent_at_te(self, fmt, curve):
        """a with (B200's `curve` ratio at TE's GEMMs, weighted by their bf16 time) ** a = TE's
        measured layer ratio of `fmt`."""
        weights = [(t, self.b200(curve, m, out, k_in)) for (m, k_in, out), t in fig.TE_B300_FPROP_BF16_MS]
        r_b200 = sum(t * r for t, r in weights) / sum(t for t, _ in weights)
        return math.log(self.te_ratio(fmt)) / math.log(r_b200)

    def b300(self, fmt, m, n, k, batch=1):
        return self.b200(fmt, m, n, k, batch) ** self.exponent[fmt]


def b300_over_b200_bf16():
    """B300 / B200 BF16 GEMM time: the median over TE's four forward GEMMs of TE's measured B300
    time over ao#2427's B200 time at the same side (two PyTorch benchmarks timing repeated calls
    of one GEMM with CUDA events)."""
    return statistics.median(t * 1e-3 / ao_bf16_time(m, out, k_in) for (m, k_in, out), t in fig.TE_B300_FPROP_BF16_MS)


# ---------------------------------------------------------------------------------------
# Rows

def b200_measured_rows():
    """B200 NVFP4 (ao#2427) and MXFP8 (flashinfer#2464) dense GEMMs and torchao's MXFP8 grouped
    GEMMs, as measured."""
    rows = [gemm_row("nvfp4", s, s, s, 1, t4, "measured:ao-nvfp4") for s, _, t4 in fig.AO_B200_NVFP4_CUBES]
    rows += [gemm_row("mxfp8", m, n, k, 1, 2.0 * m * n * k / (tf * 1e12), "measured:flashinfer-mxfp8")
             for m, n, k, tf in fig.FLASHINFER_B200_MXFP8]
    g = fig.TORCHAO_B200_MXFP8_GROUPED
    per, o = g["rows"] // g["groups"], "measured:torchao-moe"
    rows += [gemm_row("mxfp8", per, g["ffn"], g["hidden"], g["groups"], g["fwd_us"] * 1e-6, o, "grouped_gemm"),
             gemm_row("mxfp8", per, g["hidden"], g["ffn"], g["groups"], g["dgrad_us"] * 1e-6, o, "grouped_gemm_dgrad"),
             gemm_row("mxfp8", g["hidden"], g["ffn"], per, g["groups"], g["wgrad_us"] * 1e-6, o, "grouped_gemm_wgrad")]
    return rows


def shape_key(r):
    return (r.kernel, r.dtype, r.m, r.n, r.k, r.batch)


def format_rows(bf16_rows, formats, ratio, origin, skip=()):
    """Rows of `formats` at every bf16 GEMM row's shape (grouped rows by the per-group shape):
    the bf16 time x ratio(fmt, m, n, k, batch); none where `skip` has a row of that shape."""
    taken = {shape_key(r) for r in skip}
    out = []
    for r in bf16_rows:
        if r.dtype != "bf16" or not (r.kernel.startswith("gemm") or r.kernel.startswith("grouped_gemm")):
            continue
        for fmt in formats:
            row = gemm_row(fmt, r.m, r.n, r.k, r.batch, r.time_s * ratio(fmt, r.m, r.n, r.k, r.batch),
                           origin, r.kernel)
            if shape_key(row) not in taken:
                out.append(row)
    return out


TE_PASSES = {  # (tokens, in, out) -> the workload's (kernel, m, n, k) of each pass (kernels/README.md)
    "fprop": lambda t, i, o: ("gemm", t, o, i),
    "dgrad": lambda t, i, o: ("gemm_dgrad", t, i, o),
    "wgrad": lambda t, i, o: ("gemm_wgrad", i, o, t),
}


def te_b300_rows():
    """B300 rows at Transformer Engine's shapes: the forward BF16 GEMMs as measured; every other
    pass and format its measured kernel-only pass sum x this GEMM's share of the BF16 forward
    time (the four GEMMs of a pass keep their BF16 proportions)."""
    total = sum(t for _, t in fig.TE_B300_FPROP_BF16_MS)
    rows = []
    for (t, i, o), t_bf16 in fig.TE_B300_FPROP_BF16_MS:
        for fmt, passes in sorted(fig.TE_B300_PASS_MS.items()):
            for p, shape in TE_PASSES.items():
                kernel, m, n, k = shape(t, i, o)
                if fmt == "bf16" and p == "fprop":
                    rows.append(gemm_row("bf16", m, n, k, 1, t_bf16 * 1e-3, "measured:te", kernel))
                else:
                    rows.append(gemm_row(fmt, m, n, k, 1, passes[p] * 1e-3 * t_bf16 / total, "derived:te-pass-share",
                                         kernel))
    return rows
