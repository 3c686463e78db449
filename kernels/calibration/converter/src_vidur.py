"""microsoft/vidur mlp.csv: measured:vidur."""

import os

from .rows import PATHS, gemm_row, memory_row, read_csv


VIDUR_MODELS = {
    "a100": ["Llama-2-7b-hf", "Llama-2-70b-hf", "Meta-Llama-3-8B", "Meta-Llama-3-70B"],
    "h100": ["Llama-2-7b-hf", "Llama-2-70b-hf"],
}


def vidur_rows(gpu_folder):
    rows = []
    for model in VIDUR_MODELS[gpu_folder]:
        path = os.path.join(PATHS["sources"], "microsoft-vidur", gpu_folder, "meta-llama", model, "mlp.csv")
        for r in read_csv(path):
            heads, kv, hidden = int(r["n_head"]), int(r["n_kv_head"]), int(r["n_embd"])
            ffn, tokens, tp = int(r["n_expanded_embd"]), int(r["num_tokens"]), int(r["num_tensor_parallel_workers"])
            if r["use_gated_mlp"] != "True":
                raise SystemExit("convert_public.py: %s is not a gated MLP" % path)
            d = hidden // heads

            def ms(op):
                return float(r["time_stats.%s.median" % op]) * 1e-3

            o = "measured:vidur"
            rows.append(gemm_row("fp16", tokens, (heads + 2 * kv) * d // tp, hidden, 1, ms("attn_pre_proj"), o))
            rows.append(gemm_row("fp16", tokens, hidden, heads * d // tp, 1, ms("attn_post_proj"), o))
            rows.append(gemm_row("fp16", tokens, 2 * ffn // tp, hidden, 1, ms("mlp_up_proj"), o))
            rows.append(gemm_row("fp16", tokens, hidden, ffn // tp, 1, ms("mlp_down_proj"), o))
            rows.append(memory_row("swiglu", "fp16", tokens, ffn // tp, ms("mlp_act"), o))
            rows.append(memory_row("rope", "fp16", tokens, (heads + kv) * d // tp, ms("attn_rope"), o))
            if tp == 1:  # not split by TP: the other TP rows re-measure the same shape
                rows.append(memory_row("rmsnorm", "fp16", tokens, hidden, ms("input_layernorm"), o))
                rows.append(memory_row("rmsnorm", "fp16", tokens, hidden, ms("post_attention_layernorm"), o))
                rows.append(memory_row("add", "fp16", tokens, hidden, ms("add"), o))
    return rows


