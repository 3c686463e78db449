// `trainsim run --kineto-out DIR` through the real executable: one Kineto trace per simulated
// rank with the fields Holistic Trace Analysis reads (facebookresearch/HolisticTraceAnalysis@
// f4d0062c: hta/common/trace_file.py finds a file's rank with a line regex; trace_parser.py
// needs ts, dur, name, cat, pid, tid and keeps the args stream, device, correlation, bytes;
// hta/common/types.py classifies a GPU event by its name), and a folder that replaces nothing.

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>

#include "sim/trace/hdf5_trace_reader.hpp"
#include "support/run_trainsim.hpp"
#include "support/test_folders.hpp"
#include "tests/trace/trace_comparison.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;
using testing::run_trainsim;
using testing::run_trainsim_after;
using testing::source_path;

fs::path temp_dir(const std::string& name) {
  return testing::fresh_test_dir("kineto") / name;
}

const std::string k_tiny = source_path("tests/trace/tiny.ini");

// The rank HTA gives a file: the first line where `"rank":\s+(\d+)` matches
// (trace_file.py, create_rank_to_trace_dict); -1 when none does (HTA would take 0).
int hta_rank(const fs::path& file) {
  std::ifstream in(file);
  const std::regex rank_re(R"("rank":\s+(\d+))");
  std::smatch m;
  for (std::string line; std::getline(in, line);)
    if (std::regex_search(line, m, rank_re)) return std::stoi(m[1].str());
  return -1;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream(path) << text;
}

std::set<fs::path> files_in(const fs::path& dir) {
  std::set<fs::path> files;
  for (const auto& e : fs::directory_iterator(dir)) files.insert(e.path());
  return files;
}

TEST(KinetoCli, WritesOneTraceHtaReadsPerSimulatedRank) {
  const fs::path dir = temp_dir("nested/kineto");  // missing, with a missing parent: created
  const std::string h5 = (dir.parent_path().parent_path() / "tiny.h5").string();
  const auto run = run_trainsim({"run", k_tiny, "--trace", h5, "--kineto-out", dir.string(), "--set",
                                 "training.offload_activations=1", "--set", "cluster.host_link_bandwidth=4GB/s"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const TraceContents t = read_hdf5_trace(h5);
  std::map<int, int> gpu_events_of;  // rank -> its HDF5 events that run on the GPU
  for (const TraceEvent& e : t.events)
    if (e.stream != "data") ++gpu_events_of[e.rank];
  ASSERT_EQ(gpu_events_of.size(), 2u);  // tp 2 pp 2 dp 2: one replica's two stages, TP rank 0 each
  EXPECT_NE(run.err.find("wrote 2 Kineto trace(s)"), std::string::npos) << run.err;
  const std::set<fs::path> files = files_in(dir);
  ASSERT_EQ(files.size(), 2u);
  std::set<std::string> kinds_seen;
  for (const auto& [rank, expected_gpu_events] : gpu_events_of) {
    const fs::path file = dir / ("rank-" + std::to_string(rank) + ".pt.trace.json");
    ASSERT_TRUE(files.count(file)) << file;
    EXPECT_EQ(hta_rank(file), rank);
    const auto j = nlohmann::json::parse(test::file_bytes(file.string()));
    EXPECT_EQ(j["distributedInfo"]["rank"], rank);
    EXPECT_EQ(j["distributedInfo"]["world_size"], 8);
    EXPECT_EQ(j["distributedInfo"]["backend"], "nccl");  // trace_parser.py, infer_gpu_type
    const int device = rank % 2;                         // gpus_per_node = 2
    std::map<long long, int> launches;                   // correlation -> launches
    std::set<std::string> steps;
    int gpu_events = 0;
    for (const auto& e : j["traceEvents"]) {
      if (e["ph"] != "X") continue;
      for (const char* key : {"ts", "dur", "name", "cat", "pid", "tid"}) ASSERT_TRUE(e.contains(key)) << e.dump();
      EXPECT_GE(e["dur"].get<double>(), 0.0);
      const std::string name = e["name"], cat = e["cat"];
      const auto& args = e["args"];
      if (cat == "user_annotation" && name.rfind("ProfilerStep#", 0) == 0) steps.insert(name);
      if (cat == "cuda_runtime") ++launches[args["correlation"].get<long long>()];
      if (!args.contains("stream")) continue;
      ++gpu_events;
      EXPECT_TRUE(cat == "kernel" || cat == "gpu_memcpy") << cat;
      EXPECT_EQ(e["pid"], device);
      EXPECT_EQ(args["device"], device);
      EXPECT_EQ(e["tid"], args["stream"]);
      EXPECT_GT(args["stream"].get<int>(), 0);  // trace.py: GPU events are stream > 0
      if (args.contains("bytes")) {
        EXPECT_TRUE(args["bytes"].is_number_integer());  // event_args_1.0.0.yaml: Int
      }
      const std::string kind = args["trainsim kind"];
      kinds_seen.insert(kind);
      // hta/common/types.py: names starting "nccl" are communication, "Memcpy" memory; the
      // rest computation.
      if (kind == "offload_wait") {
        EXPECT_EQ(cat, "gpu_memcpy");
        EXPECT_EQ(name.rfind("Memcpy ", 0), 0u) << name;
      } else if (kind == "forward" || kind == "backward" || kind == "optimizer" || kind == "recompute") {
        EXPECT_EQ(name, kind);
      } else {
        EXPECT_EQ(name.rfind("ncclDevKernel_", 0), 0u) << name;
      }
      const long long correlation = args["correlation"];
      EXPECT_EQ(launches[correlation], 1) << "one launch before each GPU event: " << name;
    }
    EXPECT_EQ(gpu_events, expected_gpu_events) << file;
    EXPECT_EQ(steps, (std::set<std::string>{"ProfilerStep#0", "ProfilerStep#1"}));
  }
  for (const char* kind : {"forward", "backward", "tp_allreduce", "pp_transfer", "dp_reduce", "offload_wait"})
    EXPECT_TRUE(kinds_seen.count(kind)) << kind;
  // The same scenario gives the same files, byte for byte.
  const fs::path again = dir.parent_path() / "again";
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--kineto-out", again.string(), "--set", "training.offload_activations=1",
                          "--set", "cluster.host_link_bandwidth=4GB/s"})
                .exit_code,
            0);
  for (const fs::path& file : files)
    EXPECT_EQ(test::file_bytes((again / file.filename()).string()), test::file_bytes(file.string())) << file;
}

TEST(KinetoCli, RefusesAFolderThatHoldsAnythingAndReplacesNothing) {
  const fs::path dir = temp_dir("mine");
  fs::create_directories(dir);
  write_file(dir / "rank-0.pt.trace.json", "my own profile");
  const auto run = run_trainsim({"run", k_tiny, "--kineto-out", dir.string()});
  EXPECT_EQ(run.exit_code, 2);
  EXPECT_NE(run.err.find("--kineto-out"), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("holds 'rank-0.pt.trace.json'"), std::string::npos) << run.err;
  EXPECT_EQ(std::count(run.err.begin(), run.err.end(), '\n'), 1) << run.err;
  EXPECT_EQ(test::file_bytes((dir / "rank-0.pt.trace.json").string()), "my own profile");
  EXPECT_EQ(files_in(dir).size(), 1u);

  const fs::path file = dir.parent_path() / "a-file";
  write_file(file, "x");
  const auto on_file = run_trainsim({"run", k_tiny, "--kineto-out", file.string()});
  EXPECT_EQ(on_file.exit_code, 2);
  EXPECT_NE(on_file.err.find("names a file"), std::string::npos) << on_file.err;
  EXPECT_EQ(test::file_bytes(file.string()), "x");

  const fs::path empty = dir.parent_path() / "empty";  // an empty folder is used as it is
  fs::create_directories(empty);
  ASSERT_EQ(run_trainsim({"run", k_tiny, "--kineto-out", empty.string() + "/"}).exit_code, 0);
  EXPECT_EQ(files_in(empty).size(), 2u);
}

TEST(KinetoCli, AFailedWriteLeavesNothingItCreated) {
  // Files over 16 KiB cannot be written (SIGXFSZ ignored: write(2) fails with EFBIG).
  const fs::path parent = temp_dir("new").parent_path();
  const fs::path dir = parent / "new" / "deeper";
  const auto run =
      run_trainsim_after("trap '' XFSZ; ulimit -f 16; exec ", {"run", k_tiny, "--kineto-out", dir.string()});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_NE(run.err.find("cannot write"), std::string::npos) << run.err;
  EXPECT_FALSE(fs::exists(parent / "new")) << "the folders it created are removed";
  EXPECT_EQ(testing::temporaries_in(parent), 0);
  // An empty folder of the user's stays, empty.
  const fs::path users = parent / "users";
  fs::create_directories(users);
  EXPECT_EQ(run_trainsim_after("trap '' XFSZ; ulimit -f 16; exec ", {"run", k_tiny, "--kineto-out", users.string()})
                .exit_code,
            2);
  EXPECT_TRUE(fs::is_directory(users));
  EXPECT_TRUE(files_in(users).empty()) << "no temporary file is left either";
}

}  // namespace
}  // namespace trainsim
