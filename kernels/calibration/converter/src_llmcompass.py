"""PrincetonUniversity/LLMCompass ae/figure5 A100 files: measured:llmcompass."""

import os

from .rows import PATHS, gemm_row, host_timed_keep, memory_row


def llmcompass_rows():
    base = os.path.join(PATHS["sources"], "PrincetonUniversity-LLMCompass", "ae", "figure5")

    def fields(path):
        with open(path) as f:
            return [[x.strip() for x in line.split(",")] for line in f if line.strip()]

    rows = []
    o = "measured:llmcompass"
    gemms = [(int(a), int(b), int(c), float(t[:-2]) * 1e-3)
             for a, b, c, t, _ in fields(os.path.join(base, "ab", "real_hardware", "matmul_A100.csv"))]
    for (m, n, k, t), keep in zip(gemms, host_timed_keep([g[3] for g in gemms])):
        if keep:
            rows.append(gemm_row("fp16", m, n, k, 1, t, o))
    for kernel, sub in (("softmax", "cf"), ("layernorm", "de")):
        entries = [(int(a), int(b), int(a) * int(b) / (float(v) * 1e9))
                   for a, b, v in fields(os.path.join(base, sub, "real_hardware", kernel + "_A100.csv"))]
        for (r, c, t), keep in zip(entries, host_timed_keep([e[2] for e in entries])):
            if keep:
                rows.append(memory_row(kernel, "fp16", r, c, t, o))
    entries = [(int(a), int(a) / (float(v) * 1e9)) for a, v in fields(os.path.join(base, "g", "real_hardware",
                                                                                     "gelu_A100.csv"))]
    for (elements, t), keep in zip(entries, host_timed_keep([e[1] for e in entries])):
        if keep:
            rows.append(memory_row("gelu", "fp16", elements, 1, t, o))
    return rows


