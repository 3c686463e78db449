"""Every table's rows and the sources it cites."""

from .blackwell import blackwell_tables
from .hopper_fp8 import fp8_from_bf16
from .head_dim import full_rows_from_base, h100_windowed_rows, h200_windowed_rows
from .derive import fa2_a100_attention, h200_memory_from_h100, roofline_memory_rows
from .rows import GPUS, Row, attention_rows
from .src_cudnn import cudnn_h200
from .src_llmcompass import llmcompass_rows
from .src_vidur import vidur_rows
from .src_xla import check_sm90_fp8_is_unusable, xla_entries, xla_rows


def table_rows():
    """{gpu: (rows, refs)}: every row of every table, and the sources each table cites."""
    sm90_fp8_best = check_sm90_fp8_is_unusable()
    sm90 = xla_entries("sm_90")
    h100_xla = xla_rows("sm_90", ("bf16", "tf32"), sm90)
    # fp8 from the bf16 rows, dense and grouped (batched), at DeepGEMM's measured gain by rows
    # (per group) and depth (hopper_fp8.py).
    h100_vidur = vidur_rows("h100")
    h100_gemm = h100_xla + [r for r in h100_vidur if r.kernel == "gemm"]
    h100_memory = [r for r in h100_vidur if r.kernel != "gemm"]
    h200_attention = [row for e in cudnn_h200() for row in attention_rows(*e, origin="measured:cudnn")]

    tables = {}
    rows = vidur_rows("a100") + llmcompass_rows() + fa2_a100_attention()
    tables["a100-80g"] = (rows, [("vidur", "A100 80GB DGX"), ("llmcompass", "A100 80GB"), ("cudnn", "H200, for the "
                                                                                             "shape of the derived "
                                                                                             "A100 attention")])
    rows = h100_gemm + fp8_from_bf16(h100_xla, sm90, "h100-sxm") + h100_memory + \
        [r.with_time(r.time_s, "derived:h200-cudnn") for r in h200_attention] + h100_windowed_rows()
    tables["h100-sxm"] = (rows, [("xla", "sm_90; fp8 rows not used: up to %.0f TFLOP/s, above the 1979 peak"
                                  % (sm90_fp8_best / 1e12)), ("vidur", "H100 DGX"), ("cudnn", "H200"),
                                 ("cudnn-gpt-oss", "H200 head dim 64"),
                                 ("deepgemm", "H800 FP8, the fp8 gain of dense and grouped GEMMs")])
    rows = [r.with_time(r.time_s, "derived:h100-gemm-rate") for r in h100_gemm] + \
        fp8_from_bf16(h100_xla, sm90, "h200") + h200_memory_from_h100(h100_memory) + h200_attention + h200_windowed_rows()
    tables["h200"] = (rows, [("cudnn", "H200, cuDNN 9.19"), ("cudnn-gpt-oss", "H200 head dim 64, cuDNN 9.19"), ("xla", "sm_90, via the H100 rules"),
                             ("vidur", "H100, via the H100 rules"),
                             ("deepgemm", "H800 FP8, via the H100 rules")])
    tables.update(blackwell_tables())
    out = {}
    for name, (rows, refs) in tables.items():
        if name != "a100-80g":  # head dim 64 where the table has cuDNN's head-dim-128 rows (head_dim.py)
            rows = rows + full_rows_from_base(rows)
            refs = refs + [("fa3", "H100 cuDNN head-dim-64 / head-dim-128 rates, for the full causal head-dim-64 rows")]
        present = {r.kernel for r in rows}
        rows = rows + roofline_memory_rows(GPUS[name], present)
        out[name] = (sorted(rows, key=Row.sort_key), refs)
    return out


