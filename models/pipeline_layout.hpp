#pragma once
// A pipeline layout written as Megatron-Core writes it (--pipeline-model-parallel-layout,
// TransformerConfig.pipeline_model_parallel_layout): which layers each model chunk holds.
//
// Grammar, as Megatron-Core's PipelineParallelLayerLayout.parse_str_to_list reads it
// (NVIDIA/Megatron-LM megatron/core/transformer/pipeline_parallel_layer_layout.py @ d98e8a64):
// one run of slot symbols per virtual stage, `|` between stages, E the embedding, t a
// transformer (decoder) layer, m a multi-token prediction layer, L the loss (final norm,
// output layer and loss). `X*N` repeats one symbol (`|` included) N times, `(...)*N` repeats
// a parenthesised run N times; commas are cosmetic. DeepSeek-V3's H100 recipe writes
// `Et|(tt|)*30mL` (32 stages: embedding and one layer, 30 stages of two layers, then the MTP
// layer and the loss). Megatron unrolls one level of parentheses (no nesting) and a group
// without `*N` is an error there, as it is here; spaces are refused, as there.
//
// The stages are listed flat in layer order, virtual stage by virtual stage: stage i runs on
// pipeline rank i mod pp as its virtual stage i / pp (the constructor's 1D-to-2D conversion,
// layout[vpp_rank * pp + pp_rank]), which is trainsim's chunk order (chunks_of_stage).

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "models/stage_partition.hpp"

namespace trainsim {

/// One virtual stage's slots.
struct LayoutStage {
  bool embedding = false;
  int layers = 0;  ///< transformer layers (t)
  int mtp = 0;     ///< multi-token prediction layers (m)
  bool loss = false;
};

/// A parsed layout: its text as written and its stages in flat (layer) order. Empty: none set.
struct PipelineLayout {
  std::string text;
  std::vector<LayoutStage> stages;

  bool empty() const { return stages.empty(); }
  int layers() const;
  int mtp_layers() const;
};

/// The most characters a layout may have once its repetitions are unrolled: 16 times what
/// k_max_layers (4,096 layers) over as many stages needs; it bounds the unrolling.
inline constexpr long long k_max_layout_unrolled = 1LL << 17;

/// Parses `text`; on success fills `out` and returns nothing, otherwise returns the rule the
/// text breaks. Beyond the grammar, the order Megatron-Core's validate_layer_layout asks of
/// every layout: exactly one E, opening the first stage (trainsim places the embedding on
/// pipeline rank 0's first chunk, so E may not open a later stage after empty ones); exactly
/// one L, closing the last stage; no t after an m ("decoder layers must be placed before MTP
/// layers").
std::optional<std::string> parse_pipeline_layout(std::string_view text, PipelineLayout& out);

/// The rule `layout` breaks against the model and the pipeline, or nothing: as many stages as
/// pp x virtual_stages; as many t as `layers`; as many m as `mtp_depth`, all in one stage, the
/// last virtual stage of its pipeline rank (Megatron-Core's restrictions on MTP placement).
std::optional<std::string> check_pipeline_layout(const PipelineLayout& layout, int layers, int mtp_depth, int pp,
                                                 int virtual_stages);

/// The model chunks a checked layout gives, in flat order: each chunk exactly the layers, the
/// embedding, the MTP layers and the loss its stage lists (empty chunks included). A chunk's
/// cost is its transformer layer count.
std::vector<ModelChunk> layout_chunks(const PipelineLayout& layout);

}  // namespace trainsim
