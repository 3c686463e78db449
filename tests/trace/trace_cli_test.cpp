// `trainsim run --trace/--chrome-trace` through the real executable, on a tiny scenario
// (the simulation runs in the trainsim process, one engine per process).

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <type_traits>

#include "sim/core/output_file.hpp"
#include "sim/core/utf8_text.hpp"
#include "sim/trace/hdf5_trace_reader.hpp"
#include "support/run_trainsim.hpp"
#include "tests/trace/trace_comparison.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;
using testing::source_path;

std::string temp_path(const std::string& name) {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  const fs::path dir = fs::path(::testing::TempDir()) / ("trainsim_trace_cli_" + std::string(info->name()));
  fs::create_directories(dir);
  return (dir / name).string();
}

const std::string k_tiny = source_path("tests/trace/tiny.ini");

// A replayed trace's prefix is a user's path and names the trace: bytes of it that are not UTF-8
// are written as U+FFFD, as --json writes them. `--chrome-trace` ended with "internal error:
// [json.exception.type_error.316]" (exit 1) after the replay; `--trace` stored the bytes in an
// attribute declared UTF-8, which h5py cannot read.
TEST(TraceCli, AReplayPrefixThatIsNotUtf8IsWrittenAsUtf8) {
  const std::string folder = temp_path("c\xff");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--chakra-out", folder}).exit_code, 0);
  const std::string chrome = temp_path("replay.json");
  const std::string h5 = temp_path("replay.h5");
  const auto r = run_trainsim({"replay", folder + "/step", "--chrome-trace", chrome, "--trace", h5});
  ASSERT_EQ(r.exit_code, 0) << r.err;
  const auto j = nlohmann::json::parse(testing::slurp(chrome));
  EXPECT_EQ(j["otherData"]["scenario"], temp_path("c\xef\xbf\xbd") + "/step");
  const std::string stored = read_hdf5_trace(h5).metadata.scenario_path;
  EXPECT_EQ(first_invalid_utf8(stored), std::string::npos) << stored;
  EXPECT_EQ(stored, temp_path("c\xef\xbf\xbd") + "/step");
}

TEST(TraceCli, TraceHoldsTheRunsSummaryStepsEventsAndMemory) {
  const std::string path = temp_path("tiny.h5");
  const auto run = run_trainsim({"run", k_tiny, "--json", "--trace", path});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out);
  const TraceContents t = read_hdf5_trace(path);
  EXPECT_EQ(t.summary.step_time_s, json["step_time_s"].get<double>());
  EXPECT_EQ(t.summary.mfu, json["mfu"].get<double>());
  EXPECT_EQ(t.summary.breakdown_s.idle, json["breakdown_s"]["idle"].get<double>());
  EXPECT_EQ(t.summary.gpus, 8);
  EXPECT_EQ(t.metadata.seed, 7u);
  EXPECT_NE(t.metadata.scenario_text.find("layers = 4"), std::string::npos);
  EXPECT_NE(t.metadata.scenario_resolved.find("[parallel]"), std::string::npos);
  ASSERT_EQ(t.steps.size(), 2u);
  EXPECT_EQ(t.steps[1].step, 1);
  EXPECT_GT(t.steps[1].end_s, t.steps[1].start_s);
  EXPECT_EQ(t.steps[0].tokens, json["tokens_per_step"].get<double>());
  ASSERT_EQ(t.memory.size(), 2u);  // pp = 2
  std::set<std::string> streams;
  for (const TraceEvent& e : t.events) {
    streams.insert(e.stream);
    EXPECT_GE(e.end_s, e.start_s);
    EXPECT_EQ(e.count, 1);
  }
  EXPECT_TRUE(streams.count("compute"));
  EXPECT_TRUE(streams.count("pp_comm"));
  EXPECT_TRUE(streams.count("dp_comm"));
  EXPECT_EQ(t.events_observed, static_cast<std::int64_t>(t.events.size()));
  EXPECT_FALSE(t.run.has_value());  // no [run] duration
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
    EXPECT_FALSE(is_temporary_name(entry.path().filename().string())) << entry.path();
}

TEST(TraceCli, TraceHoldsTheRunLevelSimulation) {
  // 3 days, a node failing every 2 days on average, a 2-minute checkpoint every 20 minutes.
  const std::string path = temp_path("run.h5");
  const auto run = run_trainsim({"run", k_tiny, "--json", "--trace", path, "--trace-level", "summary", "--set",
                                 "run.duration=3d", "--set", "failures.mtbf=2d", "--set",
                                 "checkpoint.write_bandwidth=2MB/s", "--set", "checkpoint.interval=20min"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto json = nlohmann::json::parse(run.out).at("run");
  const TraceContents t = read_hdf5_trace(path);
  ASSERT_TRUE(t.run.has_value());
  for_each_run_field(*t.run, [&json](const char* name, const auto& value) {
    EXPECT_EQ(value, json.at(name).get<std::decay_t<decltype(value)>>()) << name;
  });
  EXPECT_GT(t.run->failures, 1);
  EXPECT_EQ(t.run->interruptions.size(), static_cast<size_t>(t.run->failures + t.run->planned_interruptions));
  EXPECT_EQ(t.run->checkpoints.size(),
            static_cast<size_t>(t.run->checkpoints_written + t.run->checkpoints_interrupted));
  for (const InterruptionRecord& i : t.run->interruptions) EXPECT_FALSE(i.cause.empty());
}

TEST(TraceCli, SameScenarioAndSeedGiveTheSameTrace) {
  const std::string a = temp_path("a.h5");
  const std::string b = temp_path("b.h5");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", a}).exit_code, 0);
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", b}).exit_code, 0);
  test::expect_equal_traces(read_hdf5_trace(a), read_hdf5_trace(b), false);
}

TEST(TraceCli, TraceLevelStepsLeavesEventsEmpty) {
  const std::string path = temp_path("steps.h5");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", path, "--trace-level", "steps"}).exit_code, 0);
  const TraceContents t = read_hdf5_trace(path);
  EXPECT_EQ(t.level, TraceLevel::steps);
  EXPECT_EQ(t.steps.size(), 2u);
  EXPECT_TRUE(t.events.empty());
}

TEST(TraceCli, FullSimulationTracesEveryReplica) {
  const std::string path = temp_path("full.h5");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--full", "--trace", path}).exit_code, 0);
  const TraceContents t = read_hdf5_trace(path);
  EXPECT_FALSE(t.metadata.reduce_symmetry);
  std::set<int> replicas;
  for (const TraceEvent& e : t.events) replicas.insert(e.replica);
  EXPECT_EQ(replicas, (std::set<int>{0, 1}));  // dp = 2
}

TEST(TraceCli, ASlowGpusReplicaIsTracedBesideANormalOne) {
  // GPU 7 (stage 1 of replica 1) at half speed: its class is simulated beside replica 0's, and
  // the trace holds both timelines, the slow replica's compute longer (its stage 1 twice as).
  const std::string path = temp_path("slow.h5");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", path, "--set", "variations.slow_gpu_ids=7", "--set",
                          "variations.slow_gpu_speed=0.5"})
                .exit_code,
            0);
  const TraceContents t = read_hdf5_trace(path);
  std::map<int, double> compute_s;  // by replica
  for (const TraceEvent& e : t.events)
    if (e.stream == "compute") compute_s[e.replica] += e.end_s - e.start_s;
  ASSERT_EQ(compute_s.size(), 2u);
  EXPECT_GT(compute_s.rbegin()->second, 1.3 * compute_s.begin()->second);
}

TEST(TraceCli, BadTracePathIsBadInputAndWritesNothing) {
  const auto run = run_trainsim({"run", k_tiny, "--trace", "/nonexistent-dir/x.h5"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty());
  EXPECT_NE(run.err.find("--trace"), std::string::npos) << run.err;
}

TEST(TraceCli, BadChromeTracePathIsBadInput) {
  const auto run = run_trainsim({"run", k_tiny, "--chrome-trace", "/nonexistent-dir/x.json"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--chrome-trace"), std::string::npos) << run.err;
}

TEST(TraceCli, BadTraceLevelIsBadInput) {
  const auto run = run_trainsim({"run", k_tiny, "--trace", temp_path("x.h5"), "--trace-level", "everything"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--trace-level"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(temp_path("x.h5")));
}

// Issue 19: options of the HDF5 trace were ignored without --trace.
TEST(TraceCli, TraceLevelWithoutTraceIsBadInput) {
  const auto run = run_trainsim({"run", k_tiny, "--trace-level", "steps"});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty());
  EXPECT_EQ(run.err, "trainsim: trainsim run: --trace-level = 'steps': needs --trace FILE (it sets what the HDF5 "
                     "trace holds)\n");
}

TEST(TraceCli, TraceLinksWithoutTraceIsBadInput) {
  const auto run = run_trainsim({"run", k_tiny, "--trace-links", "--chrome-trace", temp_path("links.json")});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_TRUE(run.out.empty());
  EXPECT_NE(run.err.find("--trace-links: needs --trace FILE"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(temp_path("links.json")));
}

// Issue 19: a long run's records grew with its length. The trace keeps the first 100,000
// checkpoints (sim/run/run_limits.hpp); /run counts them all.
TEST(TraceCli, LongRunKeepsTheFirstRecordsAndCountsThemAll) {
  const std::string path = temp_path("long-run.h5");
  // A free host (the tiny model's kernels would run at the host's pace): the step time the
  // count of 432,000 checkpoints an hour was written for.
  const auto run = run_trainsim({"run", k_tiny, "--trace", path, "--trace-level", "summary", "--set",
                                 "run.duration=1h", "--set", "checkpoint.interval=1steps", "--set",
                                 "training.kernel_host_time=0us"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const TraceContents t = read_hdf5_trace(path);
  ASSERT_TRUE(t.run.has_value());
  EXPECT_EQ(t.run->checkpoints.size(), 100000u);
  EXPECT_GT(t.run->checkpoints_written, 100000);
  EXPECT_LT(t.run->checkpoints.back().end_s, 3600.0 / 4);  // the first ones (of 432,000 in the hour)
}

TEST(TraceCli, ASlowGpusTracksSayWhatTheirReplicaStandsFor) {
  // GPU 7 at half speed (TP rank 1 of stage 1, replica 1; TP rank 0 there is rank 6): the
  // Chrome trace names the tracks of each simulated replica with what it stands for and
  // marks the slow stage's; both traces say which replicas the events are of.
  const std::string h5 = temp_path("slow.h5");
  const std::string chrome = temp_path("slow.json");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", h5, "--chrome-trace", chrome, "--set",
                          "variations.slow_gpu_ids=7", "--set", "variations.slow_gpu_speed=0.5"})
                .exit_code,
            0);
  const auto j = nlohmann::json::parse(test::file_bytes(chrome));
  std::set<std::string> compute_tracks;
  for (const auto& e : j["traceEvents"]) {
    const std::string name = e["ph"] == "M" && e["name"] == "thread_name" ? e["args"]["name"].get<std::string>() : "";
    if (!name.empty() && name.find(" compute") == name.find(' ', 5)) compute_tracks.insert(name);  // "rank R compute"
  }
  // Megatron-Core's order (TP, then DP, then PP): stage 0 on ranks 0-3, stage 1 on 4-7.
  EXPECT_EQ(compute_tracks, (std::set<std::string>{"rank 0 compute (replica 0 standing for 1)",
                                                   "rank 2 compute (replica 1 standing for 1)",
                                                   "rank 4 compute (replica 0 standing for 1)",
                                                   "rank 6 compute (replica 1 standing for 1; compute 2.000x as long)"}));
  const std::string described = read_hdf5_trace(h5).metadata.simulated_gpus;
  EXPECT_NE(described.find("2 classes, replicas 0 (standing for 1), 1 (standing for 1)"), std::string::npos)
      << described;
  EXPECT_EQ(j["otherData"]["simulated_gpus"].get<std::string>(), described);
  // --full: every replica, the slow stage's tracks marked, the others' left as they were.
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--full", "--chrome-trace", chrome, "--set", "variations.slow_gpu_ids=7",
                          "--set", "variations.slow_gpu_speed=0.5"})
                .exit_code,
            0);
  std::set<std::string> noted;
  const auto full = nlohmann::json::parse(test::file_bytes(chrome));
  for (const auto& e : full["traceEvents"])
    if (e["ph"] == "M" && e["name"] == "thread_name" &&
        e["args"]["name"].get<std::string>().find('(') != std::string::npos)
      noted.insert(e["args"]["name"].get<std::string>());
  EXPECT_EQ(noted.count("rank 6 compute (replica 1; compute 2.000x as long)"), 1u);
  for (const std::string& name : noted) EXPECT_EQ(name.rfind("rank 6 ", 0), 0u) << name;
}

TEST(TraceCli, ChromeTraceHasOneProcessPerNodeAndTheSameEvents) {
  const std::string h5 = temp_path("tiny.h5");
  const std::string chrome = temp_path("tiny.json");
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--trace", h5, "--chrome-trace", chrome}).exit_code, 0);
  const auto j = nlohmann::json::parse(test::file_bytes(chrome));
  const TraceContents t = read_hdf5_trace(h5);
  size_t complete = 0;
  std::set<int> process_names;
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] == "X") {
      ++complete;
      EXPECT_GE(e["dur"].get<double>(), 0.0);
    }
    if (e["ph"] == "M" && e["name"] == "process_name") process_names.insert(e["pid"].get<int>());
  }
  EXPECT_EQ(complete, t.events.size());
  // One replica of tp 2 x pp 2 (dp 2) on 2-GPU nodes: TP rank 0 of each stage, on nodes 0
  // and 2 (Megatron-Core's order puts the two replicas' stage 0 on nodes 0 and 1).
  EXPECT_EQ(process_names, (std::set<int>{0, 2}));
}

// Issue 55: a slice's start and its duration were rounded apart, so a slice could end 1 ns
// after the next one on its track began, and Perfetto drops overlapping slices. Slices that
// do not overlap in the simulation do not overlap in the trace.
TEST(TraceCli, ChromeTraceSlicesNeverOverlapTheirNeighbours) {
  const std::string h5 = temp_path("neighbours.h5");
  const std::string chrome = temp_path("neighbours.json");
  // The default scenario: its times are not round numbers (the tiny one's are, and never showed it).
  ASSERT_EQ(run_trainsim({"run", source_path("scenarios/default.ini"), "--trace", h5, "--chrome-trace", chrome,
                          "--trace-level", "events"})
                .exit_code,
            0);
  const auto j = nlohmann::json::parse(test::file_bytes(chrome));
  const TraceContents t = read_hdf5_trace(h5);
  std::vector<std::pair<long long, long long>> slices;  // [start, end) in ns, in event order
  for (const auto& e : j["traceEvents"]) {
    if (e["ph"] != "X") continue;
    const long long start = std::llround(e["ts"].get<double>() * 1000);
    slices.push_back({start, start + std::llround(e["dur"].get<double>() * 1000)});
  }
  ASSERT_EQ(slices.size(), t.events.size());
  // Each track's events by start: where one ends before or as the next begins, so do the slices.
  std::map<std::pair<int, std::string>, std::vector<size_t>> tracks;
  for (size_t i = 0; i < t.events.size(); ++i) tracks[{t.events[i].rank, t.events[i].stream}].push_back(i);
  size_t neighbours = 0;
  for (auto& [track, ids] : tracks) {
    std::stable_sort(ids.begin(), ids.end(),
                     [&](size_t a, size_t b) { return t.events[a].start_s < t.events[b].start_s; });
    for (size_t k = 1; k < ids.size(); ++k) {
      if (t.events[ids[k - 1]].end_s > t.events[ids[k]].start_s) continue;
      ++neighbours;
      EXPECT_LE(slices[ids[k - 1]].second, slices[ids[k]].first)
          << "rank " << track.first << " " << track.second << " events " << ids[k - 1] << " and " << ids[k];
    }
  }
  EXPECT_GT(neighbours, 100u);
}


// Issue 55: Perfetto draws an arrow for each pipeline transfer, from the pass that sent it to
// the transfer the next stage waited for: one flow per transfer, its two ends on the sending
// and the receiving stage, the send ended before the transfer began, ids unique.
TEST(TraceCli, ChromeTraceHasOneFlowPerPipelineTransfer) {
  const std::string h5 = temp_path("flows.h5");
  const std::string chrome = temp_path("flows.json");
  // The default scenario (pp 4, 16 micro-batches) and an interleaved one (chunks wrap around
  // from the last stage to the first).
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{}, std::vector<std::string>{"--set", "parallel.schedule=interleaved", "--set",
                                                             "parallel.virtual_stages=2"}}) {
    std::vector<std::string> args{"run", source_path("scenarios/default.ini"), "--trace", h5, "--chrome-trace",
                                  chrome};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto run = run_trainsim(args);
    ASSERT_EQ(run.exit_code, 0) << run.err;
    const TraceContents t = read_hdf5_trace(h5);
    size_t transfers = 0;
    for (const TraceEvent& e : t.events) transfers += e.kind == "pp_transfer" ? 1 : 0;
    ASSERT_GT(transfers, 0u);
    const auto j = nlohmann::json::parse(test::file_bytes(chrome));
    std::map<long long, nlohmann::json> out, in;  // bind_id -> slice
    for (const auto& e : j["traceEvents"]) {
      if (!e.contains("bind_id")) continue;
      ASSERT_EQ(e["ph"], "X");
      const long long id = e["bind_id"].get<long long>();
      auto& ends = e.value("flow_out", false) ? out : in;
      EXPECT_TRUE(e.value("flow_out", false) != e.value("flow_in", false)) << e.dump();
      EXPECT_TRUE(ends.emplace(id, e).second) << "bind_id " << id << " twice";
    }
    EXPECT_EQ(out.size(), transfers);
    EXPECT_EQ(in.size(), transfers);
    const auto ns = [](const nlohmann::json& v) { return std::llround(v.get<double>() * 1000); };
    for (const auto& [id, to] : in) {
      ASSERT_TRUE(out.count(id)) << "flow " << id << " has no start";
      const auto& from = out.at(id);
      EXPECT_EQ(to["name"], "pp_transfer");
      EXPECT_EQ(from["cat"], "compute");
      EXPECT_TRUE(from["name"] == "forward" || from["name"] == "backward") << from.dump();
      EXPECT_EQ(from["args"]["microbatch"], to["args"]["microbatch"]);
      EXPECT_NE(from["args"]["stage"], to["args"]["stage"]);
      EXPECT_LE(ns(from["ts"]) + ns(from["dur"]), ns(to["ts"])) << "flow " << id;
    }
  }
}

}  // namespace
}  // namespace trainsim
