#pragma once
// Activation memory of a transformer layer, following Korthikanti et al. 2022,
// "Reducing Activation Recomputation in Large Transformer Models", §4 and Table 2
// (16-bit activations, 1-byte dropout masks), generalised to GQA, SwiGLU, models
// without dropout, fused (flash) attention, MoE (top_k) and context parallelism.

#include "models/model_spec.hpp"
#include "models/training_spec.hpp"

namespace trainsim {

/// What splits one micro-batch's activations on one GPU.
struct ActivationLayout {
  int micro_batch = 1;
  int tp = 1;
  int cp = 1;  ///< the sequence is split over cp ranks: each holds seq_len / cp tokens
  bool sequence_parallel = false;
  Recompute recompute = Recompute::none;
  AttentionKernel attention = AttentionKernel::flash;
  /// Bytes of one element of the GEMM inputs a layer saves for its weight gradients: 2 in
  /// 16-bit training; under FP8, MXFP8 or NVFP4 Transformer Engine saves the quantized copy
  /// its forward GEMM read (quantized_element_bytes).
  double gemm_input_bytes = 2.0;
  /// The output projection saves its 16-bit input instead of its quantized copy
  /// (models/original_input_casts.hpp: every quantized recipe but fp8 delayed scaling).
  bool projection_saves_original_input = false;
  bool fused_cross_entropy = false;  ///< TrainingSpec::fused_cross_entropy
};

/// Bytes one transformer layer keeps for backward, per micro-batch, per GPU.
/// For a GPT-3 style layer (MHA, GeLU MLP of 4h, dropout, standard attention):
///   no parallelism      s b h (34 + 5 a s / h)                 (Korthikanti eq. 1)
///   TP                  s b h (10 + 24/t + 5 a s / (h t))       (eq. 2)
///   TP + SP             s b h (34/t + 5 a s / (h t))            (eq. 4)
///   TP + selective      s b h (10 + 24/t); with SP s b h 34/t   (Table 2)
///   full recompute      2 s b h (the layer's input; /t with SP)  (Table 2)
double layer_activation_bytes(const ModelSpec& model, const ActivationLayout& layout);

/// Bytes held while one layer is being recomputed under full recompute: that layer's
/// activations as stored without recompute, for one micro-batch. Zero otherwise.
double recompute_working_bytes(const ModelSpec& model, const ActivationLayout& layout);

/// Bytes the first stage keeps per micro-batch outside its layers: the dropout mask of
/// the embedding output (Korthikanti App. B, the p/L term).
double embedding_activation_bytes(const ModelSpec& model, const ActivationLayout& layout);

/// Bytes the last stage keeps per micro-batch outside its layers: the inputs of the
/// final norm and of the output layer (4 s b h) and the fp32 logits (4 s b V / t)
/// (Korthikanti App. B, the δ(p=1) term); with the fused cross entropy the 16-bit logits
/// holding their gradient (2 s b V / t; NVIDIA/TransformerEngine
/// transformer_engine/pytorch/cross_entropy.py: the forward saves the input it overwrote
/// with the gradient).
double output_activation_bytes(const ModelSpec& model, const ActivationLayout& layout);

}  // namespace trainsim
