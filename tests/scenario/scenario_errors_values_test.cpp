// Every invalid-input rule, continued (scenario_error_cases.hpp): values out of range, bytes
// that are not text, the architecture keys, and what is not a scenario file at all.

#include <gtest/gtest.h>

#include <algorithm>

#include "support/run_trainsim.hpp"
#include "scenario/scenario_error_cases.hpp"

namespace trainsim::scenario_errors {
namespace {

using testing::run_trainsim;
using testing::write_temp_file;

const BadInput k_value_cases[] = {
    // Issue 19: a value above the int's range said only "expected an integer >= 1"; the bound
    // now named is trainsim's own, with its reason.
    // Found by tests/fuzz: Boost's message for this line looped forever.
    {"line_naming_boosts_placeholder",
     base_with("%invalid_line% here\n"),
     {},
     "the line '%invalid_line% here'",
     "neither [section] nor key = value"},
    // Found by tests/fuzz: bytes that are not UTF-8 broke the JSON of sweeps and --json.
    {"file_not_utf8", base_with("[run]\nseed = \xff\n"), {}, "the file is not UTF-8 text", "line 13"},
    {"set_not_utf8", base_with(""), {"--set", "cluster.calibration=caf\xe9.csv"}, "--set", "not UTF-8 text"},
    // Control characters: refused with the line and the code point, never printed raw (a
    // byte-order mark and CRLF line ends are accepted: ScenarioLoader.EditorsByteOrderMarkAndCrlf).
    {"control_character_in_file", base_with("[run]\nseed = 1\x07\n"), {}, "U+0007", "on line 13"},
    {"lone_carriage_return", base_with("[run]\rseed = 1\n"), {}, "U+000D", "on line 12"},
    {"c1_control_in_file", base_with("[run]\nseed = 1\xc2\x85\n"), {}, "U+0085", "on line 13"},
    {"control_character_in_set", base_with(""), {"--set", "model.layers=3\x1b"}, "--set", "U+001B"},
    {"grad_accum_beyond_int",
     base_with(""),
     {"--set", "training.grad_accum=4000000000"},
     "training.grad_accum",
     "from 1 to 16384: at most 16384 micro-batches are simulated"},
    {"int_beyond_int", base_with(""), {"--set", "model.hidden=4000000000"}, "model.hidden", "from 1 to 2147483647"},
    {"steps_times_microbatches",
     base_with(""),
     {"--set", "run.steps=4096"},
     "run.steps",
     "run.steps x training.grad_accum = 32768"},
    {"run_longer_than_a_century", base_with("[run]\nduration = 1000000d\n"), {}, "run.duration", "at most 100 years"},
    {"interruptions_beyond_the_event_budget",
     base_with("[run]\nduration = 10d\n[failures]\nmtbf = 1s\n"),
     {},
     "failures.mtbf",
     "at most 1e+06 run events"},
    {"maintenance_beyond_the_event_budget",
     base_with("[run]\nduration = 3000d\n[failures]\nmaintenance_interval = 1min\n"),
     {},
     "failures.maintenance_interval",
     "at most 1e+06 run events"},
    {"unknown_option", base_with(""), {"--frobnicate"}, "trainsim memory", "frobnicate"},
    // The architecture keys (issue 16).
    {"window_beyond_sequence",
     base_with(""),
     {"--set", "model.sliding_window=9000"},
     "model.sliding_window",
     "must not exceed model.seq_len"},
    {"full_interval_without_window",
     base_with(""),
     {"--set", "model.full_attention_interval=2"},
     "model.full_attention_interval",
     "needs model.sliding_window"},
    {"yarn_without_rope",
     base_with(""),
     {"--set", "model.position_embedding=learned", "--set", "model.rope_scaling=yarn"},
     "model.rope_scaling",
     "needs model.position_embedding = rope"},
    {"clamp_without_a_gated_mlp",
     base_with(""),
     {"--set", "model.activation=gelu", "--set", "model.activation_clamp=7"},
     "model.activation_clamp",
     "needs model.activation = swiglu"},
    {"rope_scaling_unknown", base_with(""), {"--set", "model.rope_scaling=ntk"}, "model.rope_scaling", "yarn"},
    {"negative_clamp", base_with(""), {"--set", "model.activation_clamp=-1"}, "model.activation_clamp", ">= 0"},
    {"dense_layers_without_experts",
     base_with(""),
     {"--set", "model.dense_layers=2"},
     "model.dense_layers",
     "needs model.experts"},
    {"dense_layers_beyond_layers",
     base_with(""),
     {"--set", "model.experts=8", "--set", "model.top_k=2", "--set", "model.dense_layers=32"},
     "model.dense_layers",
     "must be less than model.layers"},
    {"moe_interval_beyond_layers",
     base_with(""),
     {"--set", "model.experts=8", "--set", "model.top_k=2", "--set", "model.moe_layer_interval=33"},
     "model.moe_layer_interval",
     "must not exceed"},
    {"shared_experts_without_experts",
     base_with(""),
     {"--set", "model.shared_experts=1"},
     "model.shared_experts",
     "needs model.experts"},
    {"moe_ffn_without_experts",
     base_with(""),
     {"--set", "model.moe_ffn_hidden=1024"},
     "model.moe_ffn_hidden",
     "needs model.experts"},
    {"moe_ffn_vs_tp",
     base_with(""),
     {"--set", "model.experts=8", "--set", "model.top_k=2", "--set", "model.moe_ffn_hidden=1022"},
     "model.moe_ffn_hidden",
     "divisible by parallel.tp"},
    {"mla_without_rope_dim",
     base_with(""),
     {"--set", "model.kv_lora_rank=512"},
     "model.qk_rope_head_dim",
     "must be > 0 with MLA"},
    {"q_lora_without_mla", base_with(""), {"--set", "model.q_lora_rank=1536"}, "model.q_lora_rank", "needs MLA"},
    {"mla_dim_without_mla", base_with(""), {"--set", "model.v_head_dim=128"}, "model.v_head_dim", "needs MLA"},
    {"squared_relu_typo", base_with(""), {"--set", "model.activation=relu2"}, "model.activation", "squared_relu"},
    {"shard_size_without_zero",
     base_with(""),
     {"--set", "parallel.zero_shard_size=2"},
     "parallel.zero_shard_size",
     "needs parallel.zero >= 1"},
    {"shard_size_not_dividing",
     base_with(""),
     {"--set", "parallel.zero=3", "--set", "parallel.zero_shard_size=3"},
     "parallel.zero_shard_size",
     "must divide the gradient group"},
    {"microbatch_group_without_interleaving",
     base_with(""),
     {"--set", "parallel.microbatch_group=2"},
     "parallel.microbatch_group",
     "only the interleaved schedule"},
    {"microbatch_group_below_pp",
     base_with(""),
     {"--set", "parallel.schedule=interleaved", "--set", "parallel.virtual_stages=2", "--set",
      "parallel.microbatch_group=1"},
     "parallel.microbatch_group",
     "must lie between parallel.pp"},
    {"microbatch_group_small_last_group",
     base_with(""),
     {"--set", "parallel.schedule=interleaved", "--set", "parallel.virtual_stages=2", "--set", "training.grad_accum=7",
      "--set", "parallel.microbatch_group=3"},
     "parallel.microbatch_group",
     "leaves a last group of 1"},
    // DualPipe (DeepSeek-V3 §3.2.1; dualpipe.py's asserts): an even pp >= 2, an even
    // micro-batch count of at least 2 pp, no virtual stages.
    {"dualpipe_single_stage",
     base_with(""),
     {"--set", "parallel.schedule=dualpipe", "--set", "parallel.pp=1"},
     "parallel.pp",
     "dualpipe schedule needs an even pp"},
    {"dualpipe_odd_pp",
     base_with(""),
     {"--set", "parallel.schedule=dualpipe", "--set", "cluster.nodes=3", "--set", "parallel.tp=8", "--set",
      "parallel.pp=3"},
     "parallel.pp",
     "dualpipe schedule needs an even pp"},
    {"dualpipe_few_microbatches",
     base_with(""),
     {"--set", "parallel.schedule=dualpipe", "--set", "training.grad_accum=2"},
     "training.grad_accum",
     "at least 2 x parallel.pp = 4"},
    {"dualpipe_odd_microbatches",
     base_with(""),
     {"--set", "parallel.schedule=dualpipe", "--set", "training.grad_accum=5"},
     "training.grad_accum",
     "even micro-batch count"},
    {"dualpipe_virtual_stages",
     base_with(""),
     {"--set", "parallel.schedule=dualpipe", "--set", "parallel.virtual_stages=2"},
     "parallel.virtual_stages",
     "two chunks per rank of its own"},
    // The router's keys (sim/scenario/router_fields.hpp): Mixtral's 8 experts, top 2.
    {"router_balance_unknown", "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n", {"--set", "model.router_balance=learned"}, "model.router_balance",
     "forced, aux_loss"},
    {"router_aux_loss_with_drawn_imbalance",
     "[model]\npreset = mixtral-8x7b\nrouter_balance = aux_loss\nexpert_imbalance = 0.3\n[parallel]\ntp = 1\nep = "
     "8\n[cluster]\nnodes = 1\n",
     {},
     "model.router_balance",
     "exclude each other"},
    {"router_groups_not_dividing_experts",
     "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n",
     {"--set", "model.router_num_groups=3", "--set", "model.router_group_topk=1"},
     "model.router_num_groups",
     "must divide model.experts = 8"},
    {"router_group_topk_above_groups",
     "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n",
     {"--set", "model.router_num_groups=4", "--set", "model.router_group_topk=5"},
     "model.router_group_topk",
     "at most model.router_num_groups = 4"},
    {"router_groups_too_few_experts_for_top_k",
     "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n",
     {"--set", "model.router_num_groups=8", "--set", "model.router_group_topk=1"},
     "model.router_group_topk",
     "fewer than model.top_k = 2"},
    {"router_group_topk_without_groups",
     "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n",
     {"--set", "model.router_group_topk=2"},
     "model.router_group_topk",
     "needs model.router_num_groups"},
    {"router_groups_without_group_topk",
     "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n",
     {"--set", "model.router_num_groups=4"},
     "model.router_num_groups",
     "needs model.router_group_topk"},
    {"router_groups_on_a_dense_model",
     base_with(""),
     {"--set", "model.router_num_groups=4", "--set", "model.router_group_topk=2"},
     "model.router_num_groups",
     "needs model.experts > 1"},
    {"router_groups_negative", "[model]\npreset = mixtral-8x7b\n[parallel]\ntp = 1\nep = 8\n[cluster]\nnodes = 1\n", {"--set", "model.router_num_groups=-1"}, "model.router_num_groups", ">= 0"},
};

INSTANTIATE_TEST_SUITE_P(EachValueRule, ScenarioErrors, ::testing::ValuesIn(k_value_cases),
                         [](const auto& param_info) { return std::string(param_info.param.name); });

// What is not a scenario file at all (issue 19: both said "model.layers: required ...").
void expect_not_a_scenario(const std::string& path, const std::string& why) {
  const auto r = run_trainsim({"memory", path});
  EXPECT_EQ(r.exit_code, 2) << r.err;
  EXPECT_TRUE(r.out.empty()) << r.out;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_EQ(r.err, "trainsim: " + path + ": not a scenario file: " + why + "\n");
}

TEST(ScenarioFileErrors, DirectoryIsNotAScenarioFile) {
  expect_not_a_scenario(testing::source_path("scenarios"), "it is a directory");
}

TEST(ScenarioFileErrors, EmptyFileIsNotAScenarioFile) {
  expect_not_a_scenario(write_temp_file("empty.ini", ""), "it has no 'key = value' lines");
}

TEST(ScenarioFileErrors, CommentsOnlyAreNotAScenarioFile) {
  expect_not_a_scenario(write_temp_file("comments.ini", "# nothing here\n[model]\n"), "it has no 'key = value' lines");
}

}  // namespace
}  // namespace trainsim::scenario_errors
