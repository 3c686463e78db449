#pragma once
// Context parallelism's ring attention as Transformer Engine runs it (AttnFuncWithCPAndKVP2P,
// NVIDIA/TransformerEngine @ release_v2.8 40c69e75,
// transformer_engine/pytorch/attention/dot_product_attention/context_parallel.py): each rank
// holds two of the sequence's 2 cp chunks (i and 2 cp - 1 - i, the load-balanced layout) and,
// per layer and direction, runs cp attention kernels, one per ring step, each on its own shape,
// with the softmax statistics' and output's corrections (forward) and the gradients'
// accumulation (backward) as separate memory-bound kernels, while the next step's K/V block
// (and, backward, the running dK/dV) travels around the ring on its own stream.
//
// Per layer, for the rank the step is priced at (rank cp - 1: every later step is a
// "lower-triangle" block; rank 0 runs "upper-triangle" ones of the same FLOPs), with
// s' = seq_len / cp queries and keys on the rank:
//   forward   kv_pack        1 kernel   torch.cat of K and V into the send buffer
//             diagonal       1 kernel   causal s' x s' (step 0)
//             lower          cp - 1     non-causal, s' queries x s' / 2 keys (steps 1 .. cp - 1)
//             lse_correction cp         the log-sum-exp: step 0's cloned, each later one merged (fp32)
//             out_correction cp         each step's output rescaled and summed (after the loop)
//   backward  kv_pack        1 kernel   K and V copied into the ring buffer
//             lower, diagonal           the same blocks' gradients (the diagonal last)
//             dq_correction  cp         dQ copied (step 0) or accumulated
//             dkv_correction 2 cp       dK and dV accumulated into the received running sums
// The attention pieces' executed FLOPs sum to the causal kernel's (diagonal: s'^2 / 2,
// each later step s' x s' / 2; cp of them: s^2 / (2 cp) per head), their model FLOPs to the
// replaced op's.
//
// Which pieces run while the exchange is in flight (Op::beside_cp_exchange): forward, the
// send of step i's block is issued before step i's kernel and waited for before step i + 1's,
// so every step but the last hides one exchange, as do the lse corrections (issued on the
// other stream inside the loop); the output corrections follow the loop. Backward, every
// step's kernel and its dQ accumulation run beside that step's send; its dK/dV accumulation
// waits for the receive.

#include "models/layer_workload.hpp"

namespace trainsim {

/// Replaces the fused causal attention op of each pass ("attention" forward and recomputed,
/// "attention.bwd") with Transformer Engine's P2P pieces above when context parallelism runs
/// as a ring (cp > 1, cp_algo = ring, fused attention, no sliding window). Otherwise, under a
/// ring, marks the attention core ops as running beside the exchange (the whole exchange hides
/// behind them); without one, leaves `ops` unchanged.
void apply_cp_ring_attention(PassOps& ops, const ModelSpec& model, const TrainingSpec& training,
                             const ParallelSpec& parallel);

}  // namespace trainsim
