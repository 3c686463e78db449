#include "sim/scenario/pipeline_layout_field.hpp"

#include "models/pipeline_layout.hpp"
#include "sim/core/error.hpp"

namespace trainsim {

ScenarioField pipeline_layout_field() {
  ScenarioField f;
  f.name = "parallel.pipeline_layout";
  f.help = "Megatron-Core's pipeline layout: each model chunk's slots (E embedding, t layer, m MTP layer, L loss), "
           "'|' between chunks, X*N and (...)*N repeat, e.g. Et|(tt|)*30mL; none: parallel.stage_split decides";
  f.apply = [](Scenario& s, std::string_view text) -> std::optional<std::string> {
    if (text == "none") {
      s.parallel.pipeline_layout = PipelineLayout{};
      return std::nullopt;
    }
    PipelineLayout layout;
    if (auto rule = parse_pipeline_layout(text, layout)) return rule;
    s.parallel.pipeline_layout = std::move(layout);
    return std::nullopt;
  };
  f.show = [](const Scenario& s) {
    return s.parallel.pipeline_layout.empty() ? std::string("none") : s.parallel.pipeline_layout.text;
  };
  return f;
}

void check_pipeline_layout_rules(const Scenario& s) {
  const ParallelSpec& p = s.parallel;
  // Megatron-Core refuses a layout beside account_for_embedding_in_pipeline_split,
  // account_for_loss_in_pipeline_split and num_layers_in_first/last_pipeline_stage
  // (TransformerConfig.__post_init__, transformer_config.py @ d98e8a64): the layout places
  // every layer itself.
  if (p.stage_split != StageSplit::cost)
    throw InputError(s.source, "parallel.stage_split", p.stage_split == StageSplit::even ? "even" : "even-with-ends",
                     "parallel.pipeline_layout places every layer itself: leave stage_split at cost (its default)");
  if (auto rule = check_pipeline_layout(p.pipeline_layout, s.model.layers, s.model.mtp_depth, p.pp, p.virtual_stages))
    throw InputError(s.source, "parallel.pipeline_layout", p.pipeline_layout.text, *rule);
}

}  // namespace trainsim
