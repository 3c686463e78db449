"""The Blackwell tables: B200 and GB200 (Blackwell), B300 and GB300 (Blackwell Ultra).

B200 has the measurements (XLA, SimuMax, cuDNN, ao, flashinfer, torchao); GB200's GEMMs are
B200's at the measured MAMF ratio of the two boards. B300 and GB300 are one die, Blackwell
Ultra: its own GEMM measurements (Transformer Engine on B300) time the shapes they cover and
set B300's ratio over B200 everywhere else; GB300 is B300 on the Grace board. Attention: each
GPU's own cuDNN measurements (BF16 and FP8), the rest derived (refs.RULES).
"""

from . import lowprec
from .refs import BLACKWELL_MAMF, XLA_EDGE, mamf_ratio
from .head_dim import b200_windowed_rows, windowed_rows
from .rows import attention_rows, gemm_row
from .src_cudnn import (cudnn_b200_rows, cudnn_fp8_artifact_rows, cudnn_llama, gb300_attention_from_gb200)
from .src_simumax import simumax_attention_rows, simumax_gemm_rows, simumax_grouped_rows
from .src_xla import xla_entries, xla_fp8_ratio, xla_rows

GEMM_REFS = [("xla", "sm_100_B200"), ("simumax", "8x B200 node, Transformer Engine 2.11, bf16")]
LOWPREC_REFS = [("ao-nvfp4", "B200 nvfp4 and bf16 GEMMs"), ("flashinfer-mxfp8", "B200 mxfp8 GEMMs"),
                ("torchao-moe", "B200 mxfp8 grouped GEMMs")]


def is_attention(r):
    return r.kernel.startswith("attention_")


def b200_table_rows(ratios):
    """The B200 table's rows before the memory-bound rule, and its refs. GEMMs: XLA's and
    SimuMax's measurements side by side (B200_SOURCE_RULES), fp8 at SimuMax's shapes beyond
    XLA's edge and at SimuMax's grouped shapes from SimuMax's bf16 time (b200-mamf-fp8-ratio,
    b200-xla-fp8-ratio); nvfp4 and mxfp8 measured (ao, flashinfer, torchao) and at every bf16
    GEMM shape by their measured size curve (b200-lowprec-ratio); attention: every B200
    measurement (bf16 and fp8), GB200's only at shorter sequences."""
    simumax_gemm = simumax_gemm_rows()
    grouped = simumax_grouped_rows()
    mamf = BLACKWELL_MAMF["b200"]["bf16"] / BLACKWELL_MAMF["b200"]["fp8"]
    fp8 = [gemm_row("fp8", r.m, r.n, r.k, 1, r.time_s * mamf, "derived:b200-mamf-fp8-ratio", r.kernel)
           for r in simumax_gemm if max(r.m, r.n, r.k) > XLA_EDGE]
    xla = ratios.xla
    fp8 += [gemm_row("fp8", r.m, r.n, r.k, r.batch, r.time_s * max(mamf, xla_fp8_ratio(xla, r.m, r.n, r.k)),
                     "derived:b200-xla-fp8-ratio", r.kernel) for r in grouped]
    attention = cudnn_b200_rows() + simumax_attention_rows()
    shortest = min(r.m for r in attention)
    gb200 = [row.with_time(row.time_s / mamf_ratio("b200", "gb200", "bf16"), "derived:gb200-mamf-ratio")
             for e in cudnn_llama("gb200") if e[0] < shortest
             for row in attention_rows(*e, origin="derived:gb200-mamf-ratio")]
    bf16 = xla_rows("sm_100_B200", ("bf16", "tf32", "fp8"), xla) + simumax_gemm
    measured_lowprec = lowprec.b200_measured_rows()
    lowprec_rows = measured_lowprec + lowprec.format_rows(
        [r for r in bf16 + grouped if r.batch == 1 or r.kernel.startswith("grouped")], ("mxfp8", "nvfp4"),
        ratios.b200, "derived:b200-lowprec-ratio", skip=measured_lowprec)
    rows = bf16 + fp8 + grouped + lowprec_rows + attention + gb200 + lowprec_rows_fp8_attention("b200") + \
        b200_windowed_rows()
    return rows, GEMM_REFS + LOWPREC_REFS + [
        ("cudnn-b200", "B200, cuDNN 9.10"), ("cudnn-fp8", "B200 fp8 attention"),
        ("cudnn", "GB200, cuDNN 9.22, for the derived B200 rows"),
        ("cudnn-gpt-oss", "GB200 head dim 64, for the derived B200 rows"),
        ("mamf", "B200 bf16 and fp8 and GB200 bf16 MAMF, for the derived rows")]


def lowprec_rows_fp8_attention(gpu):
    """FP8 attention of `gpu` as measured; GB200 and GB300 also keep the same run's BF16 rows
    (new shapes: 128 query heads, to 128K), B200 has BF16 artifacts of its own at these shapes."""
    return cudnn_fp8_artifact_rows(gpu, with_bf16=gpu != "b200")


def not_at(rows, measured):
    """`rows` less those at a kernel, dtype and shape `measured` has a row at."""
    taken = {lowprec.shape_key(r) for r in measured}
    return [r for r in rows if lowprec.shape_key(r) not in taken]


def gb200_table_rows(b200_rows):
    own = [row for e in cudnn_llama("gb200") for row in attention_rows(*e, origin="measured:cudnn")]
    own += lowprec_rows_fp8_attention("gb200") + windowed_rows("gb200")
    # B200's measured bf16 attention, SimuMax's forward with its host gap taken out (src_simumax.py).
    from_b200 = [r for r in b200_rows if not is_attention(r) or (r.dtype == "bf16" and (
        r.origin.startswith("measured:") or r.origin == "derived:simumax-host-gap"))]
    rows = [r.with_time(r.time_s * mamf_ratio("b200", "gb200", r.dtype), "derived:b200-mamf-ratio")
            for r in not_at(from_b200, own)] + own
    return rows, [("cudnn", "GB200, cuDNN 9.22"), ("cudnn-fp8-gb200", "GB200 fp8 and bf16 attention"),
                  ("cudnn-gpt-oss", "GB200 head dim 64, cuDNN 9.22")] + \
        [(key, what + ", for the derived GB200 rows") for key, what in GEMM_REFS + LOWPREC_REFS] + \
        [("cudnn-b200", "B200, cuDNN 9.10, for the derived GB200 rows"),
         ("mamf", "B200 and GB200 MAMF, for the derived rows")]


def b300_gemm_rows(b200_rows, ratios):
    """B300 GEMMs: Transformer Engine's (te-pass-share), B200's bf16 and tf32 rows x the measured
    B300/B200 ratio (b300-over-b200), the low-precision formats from those (b300-lowprec-ratio)."""
    te = lowprec.te_b300_rows()
    rho = lowprec.b300_over_b200_bf16()
    base = [r.with_time(r.time_s * rho, "derived:b300-over-b200") for r in b200_rows
            if not is_attention(r) and r.dtype in ("bf16", "tf32")]
    base = not_at(base, te)
    formats = [r for r in lowprec.format_rows([r for r in base if r.kernel != "batched_gemm"], lowprec.FORMATS,
                                              ratios.b300, "derived:b300-lowprec-ratio", skip=te)]
    batched_fp8 = [gemm_row("fp8", r.m, r.n, r.k, r.batch, r.time_s * ratios.b300("fp8", r.m, r.n, r.k, r.batch),
                            "derived:b300-lowprec-ratio", r.kernel)
                   for r in base if r.kernel == "batched_gemm" and r.dtype == "bf16"]
    return te + base + formats + batched_fp8


def gb300_b300_tables(gb200_rows, b200_rows, ratios):
    """(gb300 rows, refs), (b300 rows, refs)."""
    b300_gemm = b300_gemm_rows(b200_rows, ratios)
    attention = [row for e in cudnn_llama("gb300") for row in attention_rows(*e, origin="measured:cudnn")]
    attention += lowprec_rows_fp8_attention("gb300") + windowed_rows("gb300")
    attention += gb300_attention_from_gb200(gb200_rows, attention)
    gemm_refs = [("te", "B300 (Blackwell Ultra, as GB300) bf16, fp8, mxfp8, nvfp4 GEMMs")] + \
        [(key, what + ", for the B300/B200 ratio and the derived rows") for key, what in GEMM_REFS + LOWPREC_REFS]
    gb300 = [r.with_time(r.time_s * mamf_ratio("b200", "gb200", r.dtype), "derived:b300-board-ratio")
             for r in b300_gemm] + attention
    gb300_refs = [("cudnn", "GB300 (and GB200 for the derived rows), cuDNN 9.22"),
                  ("cudnn-fp8", "GB300 fp8 and bf16 attention"),
                  ("cudnn-gpt-oss", "GB300 head dim 64, cuDNN 9.22")] + gemm_refs + \
        [("mamf", "B200 and GB200 MAMF, for the board ratio")]
    b300 = b300_gemm + [r.with_time(r.time_s / mamf_ratio("b200", "gb200", "bf16"), "derived:gb300-cudnn")
                        for r in attention]
    b300_refs = [("cudnn", "GB300 (and GB200), cuDNN 9.22, for the derived B300 rows"),
                 ("cudnn-fp8", "GB300 attention, for the derived B300 rows"),
                 ("cudnn-gpt-oss", "GB300 head dim 64, for the derived B300 rows")] + gemm_refs + \
        [("mamf", "B200 and GB200 MAMF, for the board ratio")]
    return (gb300, gb300_refs), (b300, b300_refs)


def blackwell_tables():
    """{gpu: (rows, refs)} of b200, gb200, b300, gb300 (before the memory-bound rule)."""
    ratios = lowprec.FormatRatios(xla_entries("sm_100_B200"))
    b200 = b200_table_rows(ratios)
    gb200 = gb200_table_rows(b200[0])
    gb300, b300 = gb300_b300_tables(gb200[0], b200[0], ratios)
    return {"b200": b200, "gb200": gb200, "gb300": gb300, "b300": b300}
