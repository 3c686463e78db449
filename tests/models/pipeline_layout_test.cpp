// Megatron-Core's pipeline layout strings (models/pipeline_layout.hpp): the grammar, the
// refusals, and the chunks a layout gives.

#include <gtest/gtest.h>

#include <array>

#include "models/layer_kinds.hpp"
#include "models/memory_budget.hpp"
#include "models/model_presets.hpp"
#include "models/parameter_count.hpp"
#include "models/pipeline_layout.hpp"
#include "models/stage_parameters.hpp"

namespace trainsim {
namespace {

PipelineLayout parsed(const std::string& text) {
  PipelineLayout layout;
  const auto rule = parse_pipeline_layout(text, layout);
  EXPECT_FALSE(rule) << text << ": " << rule.value_or("");
  return layout;
}

std::string refusal(const std::string& text) {
  PipelineLayout layout;
  return parse_pipeline_layout(text, layout).value_or("(accepted)");
}

std::string counts(const PipelineLayout& l) {
  std::string s;
  for (const LayoutStage& st : l.stages) {
    if (!s.empty()) s += '|';
    s += (st.embedding ? "E" : "") + std::to_string(st.layers) + (st.mtp ? "m" + std::to_string(st.mtp) : "") +
         (st.loss ? "L" : "");
  }
  return s;
}

TEST(PipelineLayout, DeepSeekV3H100RecipeUnrolls) {
  // Megatron-Bridge 00b7660b, scripts/performance/configs/deepseek/deepseek_llm_pretrain.py
  // (H100, PP 8 x VP 4): 32 stages, 61 layers, the MTP layer and the loss last.
  const PipelineLayout l = parsed("Et|(tt|)*30mL");
  ASSERT_EQ(l.stages.size(), 32u);
  EXPECT_TRUE(l.stages.front().embedding);
  EXPECT_EQ(l.stages.front().layers, 1);
  for (size_t i = 1; i < 31; ++i) EXPECT_EQ(l.stages[i].layers, 2) << i;
  EXPECT_EQ(l.stages.back().layers, 0);
  EXPECT_EQ(l.stages.back().mtp, 1);
  EXPECT_TRUE(l.stages.back().loss);
  EXPECT_EQ(l.layers(), 61);
  EXPECT_EQ(l.mtp_layers(), 1);
  EXPECT_EQ(l.text, "Et|(tt|)*30mL");
  EXPECT_FALSE(check_pipeline_layout(l, 61, 1, 8, 4));
  EXPECT_FALSE(check_pipeline_layout(l, 61, 1, 16, 2));
}

TEST(PipelineLayout, RepetitionForms) {
  // Symbol repetition, group repetition, '|' repeated, commas ignored (Megatron-Core's
  // parse_str_to_list docstring: "Ettt|(tt|)*29,m|L").
  EXPECT_EQ(counts(parsed("Et*4|(t*4|)*14tmL")), "E4|4|4|4|4|4|4|4|4|4|4|4|4|4|4|1m1L");
  EXPECT_EQ(counts(parsed("Ettt|(tt|)*29,m|L")), "E3|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|2|0m1|0L");
  EXPECT_EQ(counts(parsed("E|t*3|*2tL")), "E0|3|0|1L");            // `|*2`: an empty stage between
  EXPECT_EQ(counts(parsed("E(|tt)*2|L")), "E0|2|2|0L");            // Megatron's "(|ab)*2" form
  EXPECT_EQ(counts(parsed("Et*12,t*0|t*10L")), "E12|10L");         // a count of 0 is nothing
  EXPECT_EQ(counts(parsed("Et*100L")), "E100L");                   // several digits, one stage
  EXPECT_EQ(counts(parsed("E(t*4|)*2tL")), "E4|4|1L");             // a repetition inside a group
}

TEST(PipelineLayout, EachRuleOfTheGrammarRefuses) {
  const std::vector<std::pair<std::string, std::string>> cases{
      {"", "expected a layout"},
      {"Et|tX|L", "unknown symbol 'X'"},
      {"Et| t L", "unknown symbol ' '"},
      {"E((t|)*2)*2L", "nested parentheses"},
      {"E(t|t|L", "a '(' without its ')'"},
      {"Et)|L", "a ')' without its '('"},
      {"E()*2tL", "an empty group"},
      {"E(tt|)tL", "needs a repetition after it"},
      {"E*2tL", "needs exactly one E"},
      {"Et*|tL", "'*' needs a count"},
      {"E*tL", "'*' needs a count"},
      {"Et*2*3L", "one repetition per symbol or group"},
      {"*2EtL", "'*' must follow a symbol or a group"},
      {"t*99999999999L", "symbols once its repetitions are unrolled"},
      {"E(t*1000|)*1000L", "symbols once its repetitions are unrolled"},
      {"E(tttttttt|)*99999L", "symbols once its repetitions are unrolled"},
      {"tEt|L", "E (the embedding) must open the first stage"},
      {"|Et|L", "E (the embedding) must open the first stage"},
      {"Et|tL|", "L (the loss) must close the last stage"},
      {"Et|Lt", "L (the loss) must close the last stage"},
      {"t|tL", "needs exactly one E"},
      {"Et|EtL", "needs exactly one E"},
      {"Et|t", "needs exactly one L"},
      {"EtL|tL", "needs exactly one L"},
      {"Et|mtL", "a t after an m"},
  };
  for (const auto& [text, words] : cases) {
    const std::string rule = refusal(text);
    EXPECT_NE(rule.find(words), std::string::npos) << text << ": " << rule;
  }
}

TEST(PipelineLayout, EachRuleAgainstTheModelRefuses) {
  const PipelineLayout l = parsed("Et|(tt|)*30mL");  // 32 stages, 61 layers, 1 MTP layer
  const auto rule = [&](int layers, int mtp, int pp, int vs) {
    return check_pipeline_layout(l, layers, mtp, pp, vs).value_or("(accepted)");
  };
  EXPECT_NE(rule(61, 1, 16, 1).find("has 32 stages, but parallel.pp x parallel.virtual_stages = 16 x 1 = 16"),
            std::string::npos);
  EXPECT_NE(rule(60, 1, 8, 4).find("has 61 t (transformer layers), but model.layers = 60"), std::string::npos);
  EXPECT_NE(rule(61, 0, 8, 4).find("has 1 m (MTP layers), but model.mtp_depth = 0"), std::string::npos);
  EXPECT_NE(rule(61, 2, 8, 4).find("has 1 m (MTP layers), but model.mtp_depth = 2"), std::string::npos);
  // Megatron-Core keeps the MTP layers in one virtual stage, the last of its rank.
  EXPECT_NE(check_pipeline_layout(parsed("Et|tm|mL"), 2, 2, 3, 1).value_or("").find("one virtual stage"),
            std::string::npos);
  EXPECT_NE(check_pipeline_layout(parsed("Ett|tm||L"), 3, 1, 2, 2).value_or("").find(
                "has m in stage 1, virtual stage 0 of pipeline rank 1"),
            std::string::npos);
  // A standalone MTP stage (Megatron-Bridge's mtp_standalone layouts): m on a rank's last
  // virtual stage, the loss on another rank.
  EXPECT_FALSE(check_pipeline_layout(parsed("Et|t|m|L"), 2, 1, 2, 2));
}

TEST(StagePartition, TheLayoutDecidesTheChunks) {
  // Each chunk holds exactly what its stage lists, empty chunks and chunks with only the
  // embedding or the loss included, whatever the cost-based split would have chosen.
  const auto chunks = layout_chunks(parsed("E|t*5|(tt|)*2|m|L"));
  ASSERT_EQ(chunks.size(), 7u);
  const std::vector<std::array<int, 2>> spans{{0, 0}, {0, 5}, {5, 2}, {7, 2}, {9, 0}, {9, 0}, {9, 0}};
  for (size_t i = 0; i < chunks.size(); ++i) {
    EXPECT_EQ(chunks[i].first_layer, spans[i][0]) << i;
    EXPECT_EQ(chunks[i].layers, spans[i][1]) << i;
    EXPECT_EQ(chunks[i].has_embedding, i == 0) << i;
    EXPECT_EQ(chunks[i].has_output, i == 6) << i;
    EXPECT_EQ(chunks[i].mtp_layers, i == 5 ? 1 : 0) << i;
  }
}

TEST(StagePartition, ALayoutOverridesTheSplit) {
  // DeepSeek-V3 on 16 pipeline ranks: the cost-based split and a hand-written layout differ,
  // and balanced_chunks (what memory, parameters and step costs read) follows the layout.
  const ModelSpec m = *model_preset("deepseek-v3");
  ParallelSpec p;
  p.pp = 16;
  const auto cost = balanced_chunks(m, p);
  EXPECT_EQ(cost.back().mtp_layers, m.mtp_depth);  // without a layout the MTP layers stay on the last chunk
  p.pipeline_layout = parsed("Et*3|(t*4|)*14t*2mL");
  ASSERT_FALSE(check_pipeline_layout(p.pipeline_layout, m.layers, m.mtp_depth, p.pp, p.virtual_stages));
  const auto chunks = balanced_chunks(m, p);
  ASSERT_EQ(chunks.size(), 16u);
  EXPECT_EQ(chunks.front().layers, 3);
  EXPECT_EQ(chunks[7].first_layer, 3 + 6 * 4);
  EXPECT_EQ(chunks.back().layers, 2);
  EXPECT_EQ(chunks.back().mtp_layers, 1);
  EXPECT_NE(cost.front().layers, 3);
}

TEST(StagePartition, MtpWeightsFollowTheirChunk) {
  // A standalone MTP chunk (m on pipeline rank 2, the loss alone on rank 3) holds the module
  // and its own copies of the embedding and the output head; the loss's rank holds the final
  // norm and the output layer only.
  const ModelSpec m = *model_preset("deepseek-v3");
  ParallelSpec standalone;
  standalone.pp = 4;
  standalone.pipeline_layout = parsed("Et*20|t*20|t*21m|L");
  ParallelSpec together = standalone;
  together.pipeline_layout = parsed("Et*20|t*20|t*21|mL");
  const auto on = [&](const ParallelSpec& p, int stage) {
    const StageParameters s = stage_parameters(m, p, stage, chunks_of_stage(balanced_chunks(m, p), p.pp, stage));
    return s.dense + s.expert;
  };
  const ParameterCounts pc = count_parameters(m);
  const double module = count_parameters(layer_spec(m, m.layers - 1)).per_layer() + pc.mtp_extra_per_module;
  EXPECT_NEAR(on(standalone, 2) - on(together, 2), module + pc.embedding + pc.output, 1e-9 * module);
  EXPECT_NEAR(on(standalone, 3), pc.final_norm + pc.output, 1.0);
  EXPECT_NEAR(on(together, 3), pc.final_norm + pc.output + module + pc.embedding, 1e-9 * module);
}

}  // namespace
}  // namespace trainsim
