// `trainsim import megatron|bridge|names` (sim/import/, sim/scenario/megatron_names.hpp): the
// Megatron-Bridge 25.11 H100 Llama 3 70B recipe and its argument list give the same scenario,
// which runs as the validation row of that recipe does; what is not modelled is listed; bad
// input is one line naming the argument or file, exit code 2; README.md shows the table.

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;
using testing::write_temp_file;

const std::string k_recipe = "tests/data/import/llama3-70b-h100-fp8cs.yaml";
const std::string k_arguments = "tests/data/import/llama3-70b-h100-fp8cs.args";

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

// The scenario's lines without its comments.
std::string keys_of(const std::string& scenario) {
  std::istringstream in(scenario);
  std::string line, keys;
  while (std::getline(in, line))
    if (!line.starts_with("#")) keys += line + "\n";
  return keys;
}

bool has_line(const std::string& text, const std::string& line) {
  return ("\n" + text).find("\n" + line + "\n") != std::string::npos;
}

std::string imported(const std::vector<std::string>& args) {
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return r.out;
}

TEST(Import, BridgeRecipeAndItsArgumentListGiveTheSameScenario) {
  const std::string from_recipe = imported({"import", "bridge", "--nodes", "8", source_path(k_recipe)});
  const std::string from_arguments = imported({"import", "megatron", "--nodes", "8", "@" + source_path(k_arguments)});
  EXPECT_EQ(keys_of(from_recipe), keys_of(from_arguments));
  // The recipe's layout, batch, precision and overlap, each as its key.
  for (const char* line : {"tp = 4",
                           "pp = 8",
                           "virtual_stages = 5",
                           "schedule = interleaved",
                           "sequence_parallel = true",
                           "zero = 1",
                           "overlap_grad_reduce = true",
                           "overlap_param_gather = true",
                           "tp_comm_overlap = true",
                           "global_batch = 128",
                           "micro_batch = 1",
                           "precision = fp8",
                           "grad_precision = bf16",
                           "first_last_layers_bf16 = false",
                           "fused_cross_entropy = true",
                           "layers = 80",
                           "hidden = 8192",
                           "kv_heads = 8",
                           "ffn_hidden = 28672",
                           "vocab = 128256",
                           "norm = rmsnorm",
                           "activation = swiglu",
                           "tied_embeddings = false",
                           "bias = false",
                           "nodes = 8"})
    EXPECT_TRUE(has_line(from_recipe, line)) << line << "\n" << from_recipe;
  // comm_overlap's tp_comm_overlap (true) wins over the model's (false): Bridge applies it at setup.
  EXPECT_FALSE(has_line(from_recipe, "tp_comm_overlap = false"));
}

TEST(Import, ImportedRecipeRunsAsTheValidationRowOfTheSameRecipe) {
  const std::string scenario =
      write_temp_file("imported-llama3-70b.ini", imported({"import", "bridge", "--nodes", "8", source_path(k_recipe)}));
  // The validation row's own choice, which no recipe states: a rail-optimized fabric.
  const auto imported_run = run_trainsim({"run", scenario, "--json", "--set", "cluster.fabric=rail-optimized"});
  ASSERT_EQ(imported_run.exit_code, 0) << imported_run.err;
  const auto validation_run =
      run_trainsim({"run", source_path("scenarios/validation/nemo-h100-llama3-70b.ini"), "--json"});
  ASSERT_EQ(validation_run.exit_code, 0) << validation_run.err;
  EXPECT_EQ(nlohmann::json::parse(imported_run.out)["step_time_s"].get<double>(),
            nlohmann::json::parse(validation_run.out)["step_time_s"].get<double>());
}

TEST(Import, SettingsNotModelledAreListedNotDropped) {
  const std::string from_recipe = imported({"import", "bridge", source_path(k_recipe)});
  for (const char* line : {"# not modelled: optimizer.lr: 0.0003", "# not modelled: rng.seed: 1234",
                           "# not modelled: mixed_precision.fp8_param_gather: true",
                           "# not modelled: comm_overlap.tp_comm_overlap_cfg.proj_fprop.num_sm: 24"})
    EXPECT_TRUE(has_line(from_recipe, line)) << line;
  const std::string from_arguments = imported({"import", "megatron", "@" + source_path(k_arguments)});
  for (const char* line : {"# not modelled: --lr 3e-4", "# not modelled: --mock-data",
                           "# not modelled: torchrun --nproc-per-node 8 pretrain_gpt.py (the launcher)"})
    EXPECT_TRUE(has_line(from_arguments, line)) << line;
  // A value trainsim has no key value for, and a setting that counts only with another.
  const std::string other = imported({"import",
                                      "megatron",
                                      "--num-layers",
                                      "4",
                                      "--hidden-size",
                                      "1024",
                                      "--num-attention-heads",
                                      "8",
                                      "--seq-length",
                                      "2048",
                                      "--vocab-size",
                                      "32000",
                                      "--micro-batch-size",
                                      "1",
                                      "--bf16",
                                      "--fp8-format",
                                      "e4m3",
                                      "--fp8-recipe",
                                      "blockwise",
                                      "--recompute-method",
                                      "uniform",
                                      "--recompute-num-layers",
                                      "2"});
  EXPECT_TRUE(has_line(other, "precision = fp8")) << other;
  EXPECT_TRUE(has_line(other, "# not modelled: --fp8-recipe blockwise (trainsim models delayed, tensorwise or mxfp8)"));
  EXPECT_TRUE(has_line(other, "# not modelled: --recompute-num-layers 2 (counts only with recompute_method=block)"));
  // Without --nodes: one model replica's nodes, said in a comment.
  EXPECT_TRUE(has_line(other, "nodes = 1")) << other;
  EXPECT_NE(other.find("# cluster.nodes: no --nodes given"), std::string::npos);
}

TEST(Import, ArgumentFormsAndWorkedOutKeys) {
  const std::vector<std::string> shape{
      "--num-layers=8", "--hidden-size", "2048",  "--num-attention-heads", "16", "--seq-length",
      "4096",           "--vocab-size",  "50000", "--micro-batch-size",    "2",  "--bf16"};
  auto with = [&](std::vector<std::string> more) {
    std::vector<std::string> args{"import", "megatron"};
    args.insert(args.end(), shape.begin(), shape.end());
    args.insert(args.end(), more.begin(), more.end());
    return imported(args);
  };
  // Layers per virtual stage -> virtual stages: 8 / (pp 2 x 2) = 2; Megatron-LM's defaults.
  const std::string vp = with({"--pipeline-model-parallel-size", "2", "--num-layers-per-virtual-pipeline-stage", "2",
                               "--global-batch-size", "16"});
  for (const char* line : {"virtual_stages = 2", "schedule = interleaved", "layers = 8", "ffn_hidden = 8192",
                           "norm = layernorm", "activation = gelu", "position_embedding = learned", "dropout = true",
                           "tied_embeddings = true", "precision = bf16", "global_batch = 16", "stage_split = even"})
    EXPECT_TRUE(has_line(vp, line)) << line << "\n" << vp;
  // swiglu's FFN default: int(4h x 2/3 / 64) x 64 = 5440 for h = 2048; no global batch: one
  // micro-batch a step.
  const std::string swiglu = with({"--swiglu"});
  EXPECT_TRUE(has_line(swiglu, "ffn_hidden = 5440")) << swiglu;
  EXPECT_TRUE(has_line(swiglu, "grad_accum = 1")) << swiglu;
  // CUDA graphs: the implementation and its scope; "full" is a whole layer.
  EXPECT_TRUE(
      has_line(with({"--cuda-graph-impl", "transformer_engine", "--cuda-graph-scope", "attn"}), "cuda_graphs = attn"));
  EXPECT_TRUE(has_line(with({"--enable-cuda-graph"}), "cuda_graphs = attn+mlp"));
  // Recompute, offload, FSDP.
  const std::string memory = with({"--recompute-granularity", "full", "--recompute-method", "block",
                                   "--recompute-num-layers", "3", "--optimizer-cpu-offload", "--use-megatron-fsdp",
                                   "--overlap-grad-reduce", "--data-parallel-sharding-strategy", "optim_grads_params"});
  for (const char* line : {"recompute = full", "recompute_layers = 3", "offload = cpu", "fsdp = megatron", "zero = 3"})
    EXPECT_TRUE(has_line(memory, line)) << line << "\n" << memory;
  // MoE: experts, dispatcher, its overlap, MTP; the nodes grow until dp x tp holds ep.
  const std::string moe =
      with({"--num-experts", "8", "--moe-router-topk", "2", "--expert-model-parallel-size", "8",
            "--moe-token-dispatcher-type", "flex", "--moe-flex-dispatcher-backend", "hybridep",
            "--overlap-moe-expert-parallel-comm", "--mtp-num-layers", "1", "--moe-layer-freq", "([0]*2+[1]*6)"});
  for (const char* line : {"experts = 8", "top_k = 2", "ep = 8", "moe_dispatcher = hybridep", "moe_a2a_overlap = true",
                           "mtp_depth = 1", "dense_layers = 2", "moe_layer_interval = 1", "nodes = 1"})
    EXPECT_TRUE(has_line(moe, line)) << line << "\n" << moe;
}

// A recipe of an MoE model on B200: the flex dispatcher's backend and SMs, CUDA graph scopes
// as a list (and as Bridge's enums), dense layers first, block recomputation, MXFP8.
TEST(Import, BridgeMoeRecipe) {
  const std::string recipe = write_temp_file("moe-recipe.yaml", R"(model:
  _target_: megatron.bridge.models.gpt_provider.GPTModelProvider
  num_layers: 4
  hidden_size: 1024
  num_attention_heads: 8
  seq_length: 2048
  vocab_size: 32000
  num_moe_experts: 8
  moe_router_topk: 2
  expert_model_parallel_size: 8
  moe_token_dispatcher_type: flex
  moe_flex_dispatcher_backend: deepep
  moe_deepep_num_sms: 24
  cuda_graph_impl: transformer_engine
  cuda_graph_scope:
  - attn
  - _target_: megatron.core.transformer.enums.CudaGraphScope
    _call_: true
    _args_: [moe_router]
  moe_layer_freq: [0, 1, 1, 1]
  recompute_granularity: full
  recompute_method: block
  recompute_num_layers: 2
  bf16: true
train:
  micro_batch_size: 1
  global_batch_size: 64
dist:
  use_tp_pp_dp_mapping: true
mixed_precision:
  fp8: e4m3
  fp8_recipe: mxfp8
)");
  const std::string moe = imported({"import", "bridge", "--cluster", "dgx-b200", recipe});
  for (const char* line :
       {"experts = 8", "ep = 8", "moe_dispatcher = deepep", "moe_dispatcher_sms = 24", "cuda_graphs = attn+moe_router",
        "dense_layers = 1", "moe_layer_interval = 1", "recompute = full", "recompute_layers = 2", "precision = mxfp8",
        "preset = dgx-b200", "order = tp-cp-ep-pp-dp", "nodes = 1"})
    EXPECT_TRUE(has_line(moe, line)) << line << "\n" << moe;
  EXPECT_EQ(moe.find("not modelled: model.moe_token_dispatcher_type"), std::string::npos) << moe;
}

TEST(Import, BadInputIsOneLineNamingTheArgumentOrFile) {
  const auto one_line_error = [](const std::vector<std::string>& args, const std::vector<std::string>& says) {
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 2) << r.out;
    EXPECT_TRUE(r.out.empty()) << r.out;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    for (const std::string& s : says) EXPECT_NE(r.err.find(s), std::string::npos) << s << " in " << r.err;
  };
  const std::vector<std::string> shape{"--num-layers", "8",    "--hidden-size", "2048",  "--num-attention-heads", "16",
                                       "--seq-length", "4096", "--vocab-size",  "50000", "--micro-batch-size",    "1"};
  auto args = [&](std::vector<std::string> more) {
    std::vector<std::string> a{"import", "megatron"};
    a.insert(a.end(), shape.begin(), shape.end());
    a.insert(a.end(), more.begin(), more.end());
    return a;
  };
  one_line_error(args({"--tensor-model-parallel-size", "x"}), {"--tensor-model-parallel-size x", "'x'", "integer"});
  one_line_error(args({"--sequence-parallel", "yes"}), {"--sequence-parallel", "yes", "switch"});
  one_line_error(args({"--tensor-model-parallel-size"}), {"--tensor-model-parallel-size", "needs a value"});
  one_line_error({"import", "megatron", "--hidden-size", "8"}, {"--num-layers", "required"});
  one_line_error(args({"--global-batch-size", "7", "--micro-batch-size", "2"}), {"--global-batch-size 7"});
  // A default the layout refuses is named as the argument not given.
  one_line_error(args({"--use-megatron-fsdp", "--data-parallel-sharding-strategy", "optim_grads_params"}),
                 {"--overlap-grad-reduce (not given: Megatron's default false)", "parallel.fsdp = megatron"});
  one_line_error(args({"--tensor-model-parallel-size", "3", "--nodes", "1"}),
                 {"--nodes 1", "not divisible by tp*pp*cp = 3"});
  one_line_error(args({"--cluster", "nope"}), {"--cluster", "nope", "expected one of"});
  one_line_error(args({"--nodes", "0"}), {"--nodes", "'0'"});
  one_line_error({"import", "megatron", "@/nonexistent/args"}, {"/nonexistent/args", "cannot open"});
  const std::string bad_yaml = write_temp_file("bad-recipe.yaml", "model: [unclosed\n");
  one_line_error({"import", "bridge", bad_yaml}, {bad_yaml, "not YAML"});
  const std::string no_model = write_temp_file("no-model.yaml", "train:\n  micro_batch_size: 1\n");
  one_line_error({"import", "bridge", no_model}, {no_model, "model section"});
  one_line_error({"import", "pytorch"}, {"pytorch", "expected megatron, bridge or names"});
}

TEST(Import, DocsShowTheTableOfMegatronsNames) {
  const auto r = run_trainsim({"import", "names"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(read_text(source_path("docs/megatron-names.md")).find(r.out), std::string::npos)
      << "docs/megatron-names.md's table of Megatron's names is not what `trainsim import names` prints:\n"
      << r.out;
}

// YAML aliases repeat a node wherever they are used: nine levels of ten aliases (700 bytes) made
// the import walk 10^9 nodes (no end in 30 s), an alias in its own anchor overflowed the stack
// (a sequence: SIGSEGV) or memory (a mapping: "internal error: std::bad_alloc"). Each is one
// line, exit 2, in bounded time and memory.
TEST(Import, RecipesWhoseAliasesNeverEndAreRefused) {
  const std::string recipe = read_text(source_path(k_recipe));
  std::string bomb = "x0: &a0 [x, x, x, x, x, x, x, x, x, x]\n";
  for (int level = 1; level < 9; ++level) {
    const std::string below = "*a" + std::to_string(level - 1);
    bomb += "x" + std::to_string(level) + ": &a" + std::to_string(level) + " [" + below;
    for (int i = 1; i < 10; ++i) bomb += ", " + below;
    bomb += "]\n";
  }
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bomb.yaml", bomb + recipe.substr(0, recipe.find("model:\n") + 7) + "  lol: *a8\n" +
                        recipe.substr(recipe.find("model:\n") + 7)},
      {"cycle.yaml", recipe.substr(0, recipe.find("model:\n") + 7) + "  lol: &r [1, *r]\n" +
                         recipe.substr(recipe.find("model:\n") + 7)},
      {"cycle-map.yaml", recipe.substr(0, recipe.find("model:\n") + 7) + "  lol: &r {k: *r}\n" +
                             recipe.substr(recipe.find("model:\n") + 7)}};
  for (const auto& [name, text] : cases) {
    SCOPED_TRACE(name);
    const auto r = testing::run_trainsim_limited({"import", "bridge", write_temp_file(name, text)}, 4L << 20, 20);
    ASSERT_NE(r.exit_code, 124) << "timed out";
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(r.out, "");
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(": model.lol"), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("once its aliases are expanded"), std::string::npos) << r.err;
  }
}

}  // namespace
}  // namespace trainsim
