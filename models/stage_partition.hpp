#pragma once
// Splitting a model's layers into pipeline stages (model chunks) balanced by cost.

#include <vector>

namespace trainsim {

/// One model chunk: layers [first_layer, first_layer + layers).
struct ModelChunk {
  int first_layer = 0;
  int layers = 0;
  bool has_embedding = false;  ///< the first chunk also runs the embedding
  bool has_output = false;     ///< the last chunk also runs the final norm, logits and loss
  /// Multi-token prediction layers (DeepSeek-V3 §2.2) the chunk runs after its layers: the
  /// last chunk's unless parallel.pipeline_layout places them (an m slot) elsewhere.
  int mtp_layers = 0;
  double cost = 0;             ///< in the units of the costs given
};

/// Splits `layer_costs.size()` layers into `chunks` contiguous chunks of at least one layer,
/// minimising the most expensive chunk; the first chunk also pays `embedding_cost` and the
/// last `output_cost`. Among splits with the same maximum, the one with the smallest sum of
/// squared chunk costs (the most even) wins; ties go to the split found first, so the result
/// is deterministic. An uneven layer count (Llama 3 405B: 126 layers over 16 stages) is fine.
/// Requires 1 <= chunks <= number of layers.
std::vector<ModelChunk> partition_layers(const std::vector<double>& layer_costs, int chunks, double embedding_cost,
                                         double output_cost);

/// Megatron-LM's split: `layers / chunks` layers in every chunk (which must divide), the
/// embedding on the first and the output layer on the last beyond their layers. With
/// `ends_count_as_layers` (Megatron-Core's account_for_embedding_in_pipeline_split and
/// account_for_loss_in_pipeline_split), the embedding and the loss each count as a layer:
/// (layers + 2) / chunks per chunk, one layer fewer in the first and in the last chunk.
/// Requires the division to be exact and every chunk to keep a layer, except that with
/// ends counted the first chunk may hold the embedding alone and the last the output layer
/// and loss alone (Llama 3 §3.3.2, one layer per chunk).
std::vector<ModelChunk> even_layers(int layers, int chunks, bool ends_count_as_layers);

/// The chunks that pipeline rank `stage` runs under `virtual_stages` chunks per rank
/// (chunk c belongs to rank c mod pp, as in Megatron-LM's interleaved schedule).
std::vector<ModelChunk> chunks_of_stage(const std::vector<ModelChunk>& chunks, int pp, int stage);

/// DualPipe's chunks of rank `stage` among `chunks.size()` = pp chunks: stage `stage` (the
/// forward direction's) and stage pp - 1 - stage (the reverse direction's), DeepSeek-V3 §3.2.1
/// and deepseek-ai/DualPipe examples/example_dualpipe.py @ 3da1bbe (modules[rank],
/// modules[pp - 1 - rank]).
std::vector<ModelChunk> mirrored_chunks_of_stage(const std::vector<ModelChunk>& chunks, int stage);

}  // namespace trainsim
