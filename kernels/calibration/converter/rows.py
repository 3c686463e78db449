"""Table rows, their shape conventions (kernels/README.md) and the paths of the sources."""

import csv

# The third-party extracts and SimuMax's folder; convert_public.py's main() sets them from its arguments.
PATHS = {"sources": "", "simumax": ""}
SIMUMAX_FILE = "b200_bf16_ceperm.json"

OVERHEAD_S = 3e-6          # launch and tail per kernel (sim/compute/roofline_compute_model.cpp)
MEMORY_EFFICIENCY = 0.85   # streaming kernels' share of datasheet HBM bandwidth (same file)
HOST_TIMED_FACTOR = 10.0   # host-timed rows shorter than this x the file's shortest are dropped

GPUS = {
    "a100-80g": {"name": "NVIDIA A100-SXM4-80GB", "cc": "8.0", "hbm_Bps": 2039e9},
    "h100-sxm": {"name": "NVIDIA H100 80GB HBM3", "cc": "9.0", "hbm_Bps": 3350e9},
    "h200": {"name": "NVIDIA H200", "cc": "9.0", "hbm_Bps": 4800e9},
    "b200": {"name": "NVIDIA B200", "cc": "10.0", "hbm_Bps": 8000e9},
    "gb200": {"name": "NVIDIA GB200", "cc": "10.0", "hbm_Bps": 8000e9},
    "b300": {"name": "NVIDIA B300", "cc": "10.3", "hbm_Bps": 8000e9},
    "gb300": {"name": "NVIDIA GB300", "cc": "10.3", "hbm_Bps": 8000e9},
}

KERNEL_ORDER = ["gemm", "gemm_dgrad", "gemm_wgrad", "batched_gemm", "grouped_gemm", "grouped_gemm_dgrad",
                "grouped_gemm_wgrad", "attention_fwd", "attention_bwd", "rmsnorm", "layernorm", "softmax",
                "gelu", "swiglu", "rope", "add", "adam", "copy_d2d"]
DTYPE_ORDER = ["bf16", "fp16", "fp8", "mxfp8", "nvfp4", "tf32", "fp32", "u8"]

# mxfp8: one byte and one E8M0 scale per 32 elements; nvfp4: half a byte and one E4M3 scale per 16
# (models/training_spec.hpp); the quantized GEMMs write bf16.
IN_BYTES = {"bf16": 2, "fp16": 2, "fp8": 1, "mxfp8": 1 + 1 / 32, "nvfp4": 0.5 + 1 / 16, "tf32": 4}
OUT_BYTES = {"bf16": 2, "fp16": 2, "fp8": 2, "mxfp8": 2, "nvfp4": 2, "tf32": 4}

XLA_DTYPES = {"bf16xbf16->bf16": "bf16", "f32xf32->f32": "tf32", "f8e4m3fnxf8e4m3fn->bf16": "fp8"}

ROW_KERNEL_ROWS = [256, 1024, 4096, 16384, 65536]
ROW_KERNEL_COLS = 8192
ADAM_PARAMS = [1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30]
COPY_BYTES = [1 << 22, 1 << 24, 1 << 26, 1 << 28, 1 << 30, 1 << 32]


class Row:
    """One table row: shape fields, seconds, FLOP, bytes, and where it comes from."""

    def __init__(self, kernel, dtype, m, n, k, batch, time_s, flops, nbytes, origin):
        self.kernel, self.dtype = kernel, dtype
        self.m, self.n, self.k, self.batch = m, n, k, batch
        self.time_s, self.flops, self.bytes, self.origin = time_s, flops, nbytes, origin

    def with_time(self, time_s, origin, dtype=None, nbytes=None):
        return Row(self.kernel, dtype or self.dtype, self.m, self.n, self.k, self.batch, time_s, self.flops,
                   self.bytes if nbytes is None else nbytes, origin)

    def sort_key(self):
        return (KERNEL_ORDER.index(self.kernel), DTYPE_ORDER.index(self.dtype), self.m, self.n, self.k, self.batch,
                self.origin, self.time_s)


# ---------------------------------------------------------------------------------------
# Row builders (kernels/README.md conventions)

def gemm_row(dtype, m, n, k, batch, time_s, origin, kernel=None):
    """A GEMM row; `kernel` defaults to gemm (batch 1) or batched_gemm."""
    kernel = kernel or ("gemm" if batch == 1 else "batched_gemm")
    flops = 2 * m * n * k * batch
    nbytes = ((m * k + k * n) * IN_BYTES[dtype] + m * n * OUT_BYTES[dtype]) * batch
    return Row(kernel, dtype, m, n, k, batch, time_s, flops, nbytes, origin)


def attention_rows(seq, batch, heads, kv_heads, head_dim, fwd_s, bwd_s, origin, element=2, v_dim=None,
                   dtype="bf16", window=None):
    """Fused causal attention, forward and backward, as layer_workload.cpp counts it: forward
    FLOP 2*b*s^2*h*(d_qk + d_v)/2 (causal half; 4*b*s^2*h*d/2 for d_qk = d_v = d), backward 2.5x;
    bytes Q and O over the query heads, K and V over the KV heads (x2 backward), each
    d_qk + d_v wide, `element` bytes each (1 for fp8 attention). Shape fields: seq, seq, head_dim (d_qk),
    batch x query heads. With a sliding `window` w < seq only the keys it reads count: query i sees
    min(i, w) keys, s w - w^2/2 in all (the workload's window_keys x causal_fraction), forward FLOP
    2*b*h*(d_qk + d_v)*(s w - w^2/2), and the second shape field is w."""
    v_dim = head_dim if v_dim is None else v_dim
    fwd_flops = 2 * batch * seq * seq * heads * (head_dim + v_dim) // 2
    keys = seq
    if window is not None and window < seq:
        keys = window
        fwd_flops = 2 * batch * heads * (head_dim + v_dim) * (seq * window - window * window // 2)
    fwd_bytes = (batch * seq * heads * (head_dim + v_dim) + batch * seq * kv_heads * (head_dim + v_dim)) * element
    bh = batch * heads
    return [Row("attention_fwd", dtype, seq, keys, head_dim, bh, fwd_s, fwd_flops, fwd_bytes, origin),
            Row("attention_bwd", dtype, seq, keys, head_dim, bh, bwd_s, fwd_flops * 5 // 2, 2 * fwd_bytes, origin)]


def memory_row(kernel, dtype, rows, cols, time_s, origin):
    """Memory-bound kernels: HBM bytes as trainsim-calibrate counts them (kernels/README.md)."""
    per_element = {"rmsnorm": 4, "layernorm": 4, "softmax": 4, "gelu": 4, "rope": 4, "swiglu": 6, "add": 6}
    nbytes = per_element[kernel] * rows * cols
    if kernel == "rmsnorm":
        nbytes += 2 * cols  # the weight
    return Row(kernel, dtype, rows, cols, 0, 1, time_s, 0, nbytes, origin)


def roofline_time(nbytes, gpu):
    return OVERHEAD_S + nbytes / (MEMORY_EFFICIENCY * gpu["hbm_Bps"])


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(line for line in f if not line.startswith("#")))



def host_timed_keep(times):
    """Which host-timed rows to keep: those at least HOST_TIMED_FACTOR x the shortest."""
    floor = HOST_TIMED_FACTOR * min(times)
    return [t >= floor for t in times]

