// `trainsim plan`: every fitting layout simulated and ranked; the ranking agrees with
// `trainsim run` on the same layout, and a rerun reuses the simulated points.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>
#include <tuple>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

using testing::run_trainsim;
using testing::source_path;

// The default scenario with pp 2 in the file (a --set would fix it: the search keeps keys
// given on the command line).
std::string default_with_pp2() {
  std::ifstream in(source_path("scenarios/default.ini"));
  std::stringstream text;
  text << in.rdbuf();
  std::string ini = text.str();
  const auto at = ini.find("pp = 4");
  ini.replace(at, 6, "pp = 2");
  return testing::write_temp_file("plan-default-pp2.ini", ini);
}

// Llama 3 8B on 16 H100 (2 nodes); the default scenario's tp 8 and grad_accum 16 with pp 2
// give dp 1: a global batch of 16 samples.
std::vector<std::string> small_plan(const std::string& out) {
  return {"plan", default_with_pp2(), "--set", "model.preset=llama3-8b", "--set", "cluster.nodes=2",
          "--jobs", "2", "--out", out};
}

// --top and --write-top as the other counts: the value as given and the rule, before anything
// is written (boost's parse said "the argument ('1e9') for option '--top' is invalid").
TEST(PlanCommand, BadCountsAreNamedAsGivenWithTheRule) {
  for (const auto& [option, value, said] : std::vector<std::tuple<std::string, std::string, std::string>>{
           {"--top", "1e9", "--top = '1e9': must be an integer from 1 to 1000000"},
           {"--top", "0", "--top = '0': must be an integer from 1 to 1000000"},
           {"--write-top", "x", "--write-top = 'x': must be an integer from 0 to 1000000"},
           {"--write-top", "99999999999", "--write-top = '99999999999': must be an integer from 0"}}) {
    const std::string out = testing::write_temp_file("plan-out", "");
    std::filesystem::remove(out);
    const auto r = run_trainsim({"plan", source_path("scenarios/default.ini"), "--out", out, option, value});
    EXPECT_EQ(r.exit_code, 2) << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(said), std::string::npos) << r.err;
    EXPECT_FALSE(std::filesystem::exists(out)) << out;
  }
}

TEST(PlanCommand, RanksEveryFittingLayoutByThroughput) {
  const std::string out = testing::write_temp_file("plan-out", "") + "-dir";
  std::filesystem::remove_all(out);  // a previous run's points (of another build) would be reused
  std::vector<std::string> args = small_plan(out);
  args.insert(args.end(), {"--json", "--exhaustive"});
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const auto& layouts = j["layouts"];
  ASSERT_GT(layouts.size(), 5U);
  EXPECT_EQ(j["pruned"].get<int>(), 0);
  EXPECT_EQ(j["considered"].get<int>(), j["refused"].get<int>() + j["too_big"].get<int>() + j["simulated"].get<int>());
  for (const auto& l : layouts) EXPECT_LE(l["step_time_bound_s"].get<double>(), l["step_time_s"].get<double>());
  EXPECT_EQ(layouts.size(), j["simulated"].get<size_t>());
  for (size_t i = 1; i < layouts.size(); ++i)
    EXPECT_GE(layouts[i - 1]["tokens_per_s"].get<double>(), layouts[i]["tokens_per_s"].get<double>());
  for (const auto& l : layouts) {
    EXPECT_LE(l["peak_memory_bytes"].get<double>(), 80.0 * 1024 * 1024 * 1024) << l.dump();
    // The split multiplies out to the 16 GPUs, the batch to the scenario's 16 samples.
    EXPECT_EQ(std::stoi(l["parallel.tp"].get<std::string>()) * std::stoi(l["parallel.pp"].get<std::string>()) *
                  std::stoi(l["parallel.dp"].get<std::string>()),
              16);
    EXPECT_EQ(std::stoi(l["training.micro_batch"].get<std::string>()) *
                  std::stoi(l["training.grad_accum"].get<std::string>()) *
                  std::stoi(l["parallel.dp"].get<std::string>()),
              16);
  }
  EXPECT_GE(j["own_rank"].get<int>(), 1);
  EXPECT_TRUE(std::filesystem::exists(out + "/results.csv"));
  // Progress reaches stderr when it is not a terminal (here a file), as a sweep's does.
  // (The scenario's own layout is simulated beside the search's when the search does not try it.)
  const size_t points = layouts.size() + (j["own"]["searched"].get<bool>() ? 0 : 1);
  EXPECT_NE(r.err.find("plan: " + std::to_string(points) + "/" + std::to_string(points) + " points done"),
            std::string::npos)
      << r.err;

  // The best layout, run on its own, gives the throughput the plan ranked it by.
  std::vector<std::string> run{"run",
                               source_path("scenarios/default.ini"),
                               "--json",
                               "--set",
                               "model.preset=llama3-8b",
                               "--set",
                               "cluster.nodes=2"};
  for (const auto& [key, value] : layouts[0].items())
    if (key.find('.') != std::string::npos) {
      run.push_back("--set");
      run.push_back(key + "=" + value.get<std::string>());
    }
  const auto best = run_trainsim(run);
  ASSERT_EQ(best.exit_code, 0) << best.err;
  EXPECT_DOUBLE_EQ(nlohmann::json::parse(best.out)["tokens_per_s"].get<double>(),
                   layouts[0]["tokens_per_s"].get<double>());

  // A rerun reuses every point and prints the same ranking.
  const auto again = run_trainsim(args);
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, r.out);

  std::vector<std::string> text_args = small_plan(out);
  text_args.push_back("--exhaustive");
  const auto text = run_trainsim(text_args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find("rank"), std::string::npos);
  EXPECT_NE(text.out.find("the scenario's own layout"), std::string::npos);
}

// Pruned by the step-time bound, the search lists the exhaustive search's top K, layout for
// layout and number for number, having simulated fewer; which ones does not depend on --jobs.
TEST(PlanCommand, PruningKeepsTheExhaustiveTop) {
  const auto plan = [](const std::string& name, const std::vector<std::string>& extra) {
    const std::string out = testing::write_temp_file(name, "") + "-dir";
    std::filesystem::remove_all(out);
    std::vector<std::string> args = small_plan(out);
    if (std::find(extra.begin(), extra.end(), "--jobs=1") != extra.end()) {
      const auto jobs = std::find(args.begin(), args.end(), "--jobs");
      args.erase(jobs, jobs + 2);
    }
    // A key `extra` sets replaces small_plan's (a key set twice is refused).
    for (std::size_t i = 0; i + 1 < extra.size(); ++i) {
      if (extra[i] != "--set") continue;
      const std::string key = extra[i + 1].substr(0, extra[i + 1].find('=') + 1);
      for (std::size_t a = 0; a + 1 < args.size(); ++a)
        if (args[a] == "--set" && args[a + 1].starts_with(key)) args.erase(args.begin() + a, args.begin() + a + 2);
    }
    args.push_back("--json");
    args.insert(args.end(), extra.begin(), extra.end());
    const auto r = run_trainsim(args);
    EXPECT_EQ(r.exit_code, 0) << r.err;
    return nlohmann::json::parse(r.out);
  };
  for (const std::vector<std::string>& layout :
       {std::vector<std::string>{"--top", "5"},
        {"--top", "1", "--set", "parallel.zero=auto"},
        {"--top", "3", "--set", "model.preset=mixtral-8x7b", "--set", "model.layers=8", "--set", "parallel.ep=auto"}}) {
    std::vector<std::string> exhaustive_args = layout;
    exhaustive_args.push_back("--exhaustive");
    const auto all = plan("plan-all", exhaustive_args);
    const auto pruned = plan("plan-pruned", layout);
    std::vector<std::string> one_job = layout;
    one_job.push_back("--jobs=1");
    const auto serial = plan("plan-serial", one_job);
    const size_t top = std::stoul(layout[1]);
    ASSERT_GE(all["layouts"].size(), top) << layout[3];
    EXPECT_GT(pruned["pruned"].get<int>(), 0) << all["layouts"].size();
    EXPECT_EQ(pruned["simulated"].get<int>() + pruned["pruned"].get<int>(), all["simulated"].get<int>());
    for (size_t i = 0; i < top; ++i) EXPECT_EQ(pruned["layouts"][i], all["layouts"][i]) << i;
    EXPECT_EQ(serial["layouts"], pruned["layouts"]);
    EXPECT_EQ(serial["pruned"], pruned["pruned"]);
  }
}

// A scenario's run-level simulation is left out: the same layouts and throughputs.
TEST(PlanCommand, RanksStepsEvenForAScenarioWithARun) {
  std::vector<std::string> plain = small_plan(testing::write_temp_file("plan-plain", "") + "-dir");
  std::vector<std::string> with_run = small_plan(testing::write_temp_file("plan-run", "") + "-dir");
  plain.push_back("--json");
  with_run.insert(with_run.end(), {"--json", "--set", "run.duration=1h", "--set", "failures.mtbf=10d"});
  const auto a = run_trainsim(plain);
  const auto b = run_trainsim(with_run);
  ASSERT_EQ(a.exit_code, 0) << a.err;
  ASSERT_EQ(b.exit_code, 0) << b.err;
  EXPECT_EQ(nlohmann::json::parse(a.out)["layouts"], nlohmann::json::parse(b.out)["layouts"]);
}

TEST(PlanCommand, SearchesTheKeysTheScenarioLeavesOpen) {
  // A small MoE (Qwen3 30B-A3B at 2 layers, 8 experts) on 8 H100 with the expert-parallel
  // size, the ZeRO stage and the chunks per stage left open: each is varied and shown, and
  // the kept key (cp) is named.
  const std::string out = testing::write_temp_file("plan-open", "") + "-dir";
  std::filesystem::remove_all(out);
  const std::string scenario = testing::write_temp_file("plan-open.ini", R"([model]
preset = qwen3-30b-a3b
layers = 4
experts = 8
seq_len = 1024
[training]
micro_batch = 1
grad_accum = 8
[parallel]
ep = auto
zero = auto
virtual_stages = auto
[cluster]
preset = dgx-h100
nodes = 1
)");
  const auto r = run_trainsim({"plan", scenario, "--jobs", "2", "--out", out, "--json", "--exhaustive"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  std::set<std::string> eps, zeros, chunks;
  for (const auto& l : j["layouts"]) {
    eps.insert(l["parallel.ep"].get<std::string>());
    zeros.insert(l["parallel.zero"].get<std::string>());
    chunks.insert(l["parallel.virtual_stages"].get<std::string>());
    EXPECT_FALSE(l.contains("parallel.cp")) << l.dump();
  }
  EXPECT_GE(eps.size(), 3u);
  EXPECT_GE(chunks.size(), 2u);
  EXPECT_FALSE(zeros.empty());
  const auto table = run_trainsim({"plan", scenario, "--jobs", "2", "--out", out});
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("cp 1 kept; searched: parallel.ep, parallel.virtual_stages, parallel.zero"),
            std::string::npos)
      << table.out;
  EXPECT_NE(table.out.find("  ep zero "), std::string::npos) << table.out;

  // Other commands need a number there.
  const auto run = run_trainsim({"run", scenario});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("only trainsim plan searches it"), std::string::npos) << run.err;
}

TEST(PlanCommand, EachLayoutCarriesItsOwnCaveat) {
  // A router balance's caveat depends on the layout's EP (aux_loss is measured at 16 experts a
  // rank, sim/scenario/router_caveat.hpp). The plan said the base's, at the search's stand-in
  // ep 1 ("32 experts per expert-parallel rank ... 1.00 x"), which no ranked layout had, and
  // hid the top layout's own; --json's layouts carried none.
  const std::string out = testing::write_temp_file("plan-caveats", "") + "-dir";
  std::filesystem::remove_all(out);
  const std::string scenario = testing::write_temp_file("plan-caveats.ini", R"([model]
preset = qwen3-30b-a3b
layers = 4
experts = 32
seq_len = 1024
router_balance = aux_loss
[training]
micro_batch = 1
grad_accum = 8
[parallel]
ep = auto
[cluster]
preset = dgx-h100
nodes = 1
)");
  const auto r = run_trainsim({"plan", scenario, "--jobs", "2", "--out", out, "--json", "--exhaustive"});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_FALSE(j["layouts"].empty());
  std::set<std::string> eps;
  for (const auto& l : j["layouts"]) {
    const int ep = std::stoi(l["parallel.ep"].get<std::string>());
    eps.insert(l["parallel.ep"].get<std::string>());
    const std::string caveat = l["caveats"].get<std::string>();
    EXPECT_NE(caveat.find("MoE on Hopper"), std::string::npos) << l.dump();
    const std::string per_rank = "aux_loss at " + std::to_string(32 / ep) + " expert";
    if (32 / ep == 16)
      EXPECT_EQ(caveat.find("aux_loss"), std::string::npos) << l.dump();
    else
      EXPECT_NE(caveat.find(per_rank), std::string::npos) << l.dump();
  }
  EXPECT_GE(eps.size(), 2u);
  EXPECT_EQ(j["caveats"], j["layouts"][0]["caveats"]);  // the summary's is the best layout's
  // The table names which ranks each caveat is for, and stderr says the same lines.
  const auto t = run_trainsim({"plan", scenario, "--jobs", "2", "--out", out, "--exhaustive"});
  ASSERT_EQ(t.exit_code, 0) << t.err;
  // Each "caveat (ranks a, b): TEXT" line is those layouts' own caveat; every shown rank has one.
  std::set<int> covered;
  std::istringstream lines(t.out);
  for (std::string line; std::getline(lines, line);) {
    if (!line.starts_with("caveat")) continue;
    ASSERT_TRUE(line.starts_with("caveat (rank")) << line;  // the layouts' caveats differ here
    const auto close = line.find("): ");
    std::istringstream ranks(line.substr(line.find(' ', 8) + 1, close - line.find(' ', 8) - 1));
    for (std::string n; std::getline(ranks, n, ',');) {
      const int rank = std::stoi(n);
      covered.insert(rank);
      EXPECT_EQ(j["layouts"][rank - 1]["caveats"].get<std::string>(), line.substr(close + 3)) << line;
    }
    EXPECT_NE(t.err.find("trainsim plan: " + line + "\n"), std::string::npos) << t.err;  // stderr says it too
  }
  EXPECT_EQ(covered.size(), std::min<std::size_t>(10, j["layouts"].size())) << t.out;
}

TEST(PlanCommand, OpenChunksWithAnInterleavedScheduleAreSearched) {
  // `virtual_stages = auto` beside `schedule = interleaved` once failed with "virtual_stages =
  // '1'", a value nobody wrote; and a scenario recomputing some layers (recompute_layers) had
  // every layout refused, since the rungs without recomputation broke that rule.
  const std::string out = testing::write_temp_file("plan-chunks", "") + "-dir";
  std::filesystem::remove_all(out);
  std::vector<std::string> args = small_plan(out);
  args.insert(args.end(),
              {"--set", "parallel.schedule=interleaved", "--set", "parallel.virtual_stages=auto", "--set",
               "training.recompute=full", "--set", "training.recompute_layers=1", "--json", "--exhaustive"});
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_GT(j["simulated"].get<int>(), 0) << r.out.substr(0, 400);
  std::set<std::string> chunks;
  for (const auto& l : j["layouts"]) chunks.insert(l["parallel.virtual_stages"].get<std::string>());
  EXPECT_GE(chunks.size(), 2u);
}

TEST(PlanCommand, OpenChunksWithTheMoeAllToAllOverlap) {
  // The search's base takes one chunk and 1F1B, which the overlap refuses with pipelining: the
  // plan still runs, every ranked layout with pipelining interleaved (the others refused).
  const std::string out = testing::write_temp_file("plan-overlap", "") + "-dir";
  std::filesystem::remove_all(out);
  const auto r = run_trainsim({"plan", source_path("scenarios/validation/nemo-h100-qwen3-30b-a3b.ini"), "--set",
                               "parallel.virtual_stages=auto", "--set", "model.layers=8", "--set",
                               "training.grad_accum=8", "--jobs", "2", "--json", "--out", out});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GT(j["simulated"].get<int>(), 0) << r.out.substr(0, 400);
  int pipelined = 0;
  for (const auto& l : j["layouts"])
    if (l["parallel.pp"].get<std::string>() != "1") {
      ++pipelined;
      EXPECT_EQ(l["parallel.schedule"].get<std::string>(), "interleaved") << l.dump();
    }
  EXPECT_GT(pipelined, 0);
}

// Issue 55: each ranked layout says why it is as fast as it is (bubble, exposed
// communication) and how much memory it leaves; the best ones are written as scenario files
// that `trainsim run` takes as they are, and give the step the plan ranked them by.
TEST(PlanCommand, ExplainsEachLayoutAndWritesTheBestAsScenarios) {
  const std::string out = testing::write_temp_file("plan-explain", "") + "-dir";
  std::filesystem::remove_all(out);
  std::vector<std::string> args = small_plan(out);
  args.insert(args.end(), {"--json", "--top", "3", "--write-top", "2"});
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  const double capacity = 85520809984.0;  // the H100's 80 GB
  for (const auto& l : j["layouts"]) {
    EXPECT_GE(l["bubble_fraction"].get<double>(), 0.0) << l.dump();
    EXPECT_LT(l["bubble_fraction"].get<double>(), 1.0) << l.dump();
    EXPECT_GE(l["exposed_comm_fraction"].get<double>(), 0.0) << l.dump();
    EXPECT_DOUBLE_EQ(l["headroom_bytes"].get<double>(), capacity - l["peak_memory_bytes"].get<double>());
  }
  // Layouts simulated over the GPU's memory are listed apart, never ranked.
  ASSERT_TRUE(j["do_not_fit"].is_array());
  EXPECT_EQ(j["do_not_fit"].size(), j["simulated_do_not_fit"].get<size_t>());
  for (const auto& l : j["do_not_fit"]) EXPECT_LT(l["headroom_bytes"].get<double>(), 0.0) << l.dump();
  ASSERT_EQ(j["scenario_files"].size(), 2u);
  EXPECT_EQ(j["scenario_files"][0].get<std::string>(), out + "/rank-1.ini");
  EXPECT_FALSE(std::filesystem::exists(out + "/rank-3.ini"));
  for (size_t i = 0; i < 2; ++i) {
    const auto run = run_trainsim({"run", j["scenario_files"][i].get<std::string>(), "--json"});
    ASSERT_EQ(run.exit_code, 0) << run.err;
    EXPECT_DOUBLE_EQ(nlohmann::json::parse(run.out)["step_time_s"].get<double>(),
                     j["layouts"][i]["step_time_s"].get<double>());
  }

  std::vector<std::string> text_args = small_plan(out);
  const auto text = run_trainsim(text_args);
  ASSERT_EQ(text.exit_code, 0) << text.err;
  EXPECT_NE(text.out.find(" bubble exp.comm  mem GiB free GiB"), std::string::npos) << text.out;
  EXPECT_NE(text.out.find("run the best: trainsim run " + out + "/rank-1.ini"), std::string::npos) << text.out;
}

// The scenario's own layout is simulated as its file says (its recomputation, its schedule),
// never a searched layout that only shares its tp, pp and micro-batch: the step it reports is
// `trainsim run`'s.
TEST(PlanCommand, ReportsTheScenariosOwnLayoutWithItsOwnKeys) {
  const std::string out = testing::write_temp_file("plan-own", "") + "-dir";
  std::filesystem::remove_all(out);
  std::vector<std::string> args = small_plan(out);
  args.push_back("--json");
  // (the default scenario recomputes selectively; the search takes none where that fits)
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["own"]["training.recompute"].get<std::string>(), "selective");
  EXPECT_EQ(j["own"]["parallel.pp"].get<std::string>(), "2");
  const auto run = run_trainsim({"run", default_with_pp2(), "--json", "--set", "model.preset=llama3-8b", "--set",
                                 "cluster.nodes=2"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  EXPECT_DOUBLE_EQ(j["own"]["step_time_s"].get<double>(), nlohmann::json::parse(run.out)["step_time_s"].get<double>());
  EXPECT_FALSE(j["own"]["searched"].get<bool>());
  EXPECT_GE(j["own_rank"].get<int>(), 1);

  // A key opened with --set KEY=auto keeps the file's value in the scenario's own layout (the
  // default scenario's ZeRO-1), never the search's stand-in.
  args.insert(args.end(), {"--set", "parallel.zero=auto", "--top", "1"});
  const auto open = run_trainsim(args);
  ASSERT_EQ(open.exit_code, 0) << open.err;
  const auto k = nlohmann::json::parse(open.out);
  EXPECT_EQ(k["own"]["parallel.zero"].get<std::string>(), "1");
  EXPECT_DOUBLE_EQ(k["own"]["step_time_s"].get<double>(), j["own"]["step_time_s"].get<double>());
}

// A layout key given with --set is kept and the search goes around it, even where the
// scenario's own split does not divide the GPUs with it (pp 4 with the file's tp 8 on 16
// GPUs): today's plan refused it. The global batch stays the scenario's.
TEST(PlanCommand, SearchesAroundAFixedKey) {
  const std::string out = testing::write_temp_file("plan-fixed", "") + "-dir";
  std::filesystem::remove_all(out);
  std::vector<std::string> args = small_plan(out);
  args.insert(args.end(), {"--set", "parallel.pp=4", "--exhaustive"});
  const auto table = run_trainsim(args);
  ASSERT_EQ(table.exit_code, 0) << table.err;
  EXPECT_NE(table.out.find("global batch 16 samples (cp 1, zero 1 kept; pp 4 fixed by --set)"), std::string::npos)
      << table.out;
  args.push_back("--json");
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GT(j["layouts"].size(), 2u);
  for (const auto& l : j["layouts"]) EXPECT_EQ(l["parallel.pp"].get<std::string>(), "4") << l.dump();
  EXPECT_EQ(j["fixed"]["parallel.pp"].get<std::string>(), "4");

  // A fixed value the search would not try on its own (4 chunks a stage; it tries 2) is tried.
  std::vector<std::string> chunks_args = small_plan(out + "-chunks");
  chunks_args.insert(chunks_args.end(), {"--set", "parallel.virtual_stages=4", "--json", "--top", "3"});
  const auto chunks = run_trainsim(chunks_args);
  ASSERT_EQ(chunks.exit_code, 0) << chunks.err;
  const auto c = nlohmann::json::parse(chunks.out);
  ASSERT_FALSE(c["layouts"].empty());
  for (const auto& l : c["layouts"]) {
    EXPECT_EQ(l["parallel.virtual_stages"].get<std::string>(), "4") << l.dump();
    EXPECT_EQ(l["parallel.schedule"].get<std::string>(), "interleaved") << l.dump();
  }
}

// Nothing fits: exit 2 and one line that names the keys kept and the --set that would search
// them, before anything is written (today: exit 0 and an empty table).
TEST(PlanCommand, NoLayoutFitsIsAnErrorThatSaysWhatToSearch) {
  const std::string out = testing::write_temp_file("plan-none", "") + "-dir";
  std::filesystem::remove_all(out);
  const auto r = run_trainsim({"plan", source_path("scenarios/default.ini"), "--set", "cluster.nodes=1", "--set",
                               "parallel.pp=1", "--set", "parallel.zero=0", "--out", out});
  EXPECT_EQ(r.exit_code, 2) << r.out << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("no layout fits in GPU memory"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("zero 0 kept"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("--set parallel.zero=auto"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("pp 1 fixed by --set"), std::string::npos) << r.err;
  EXPECT_FALSE(std::filesystem::exists(out));
}

// With pruning, the progress line counts the layouts simulated, not the ones left out.
TEST(PlanCommand, ProgressLeavesOutPrunedLayouts) {
  const std::string out = testing::write_temp_file("plan-progress", "") + "-dir";
  std::filesystem::remove_all(out);
  std::vector<std::string> args = small_plan(out);
  args.insert(args.end(), {"--json", "--top", "2"});
  const auto r = run_trainsim(args);
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  ASSERT_GT(j["pruned"].get<int>(), 0);
  const int points = j["simulated"].get<int>() + (j["own"]["searched"].get<bool>() ? 0 : 1);
  const std::string done = std::to_string(points) + "/" + std::to_string(points) + " points done";
  EXPECT_NE(r.err.find("plan: " + done), std::string::npos) << r.err;
}

TEST(PlanCommand, RejectsBadOptions) {
  std::vector<std::string> args = small_plan(testing::write_temp_file("plan-bad", "") + "-dir");
  args.insert(args.end(), {"--top", "0"});
  const auto r = run_trainsim(args);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("--top"), std::string::npos) << r.err;
}

}  // namespace
}  // namespace trainsim
