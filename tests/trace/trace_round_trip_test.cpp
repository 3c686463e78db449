// The HDF5 trace round trip: contents written, read back, compared field by field. No
// simulation: the contents are made by hand.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string_view>
#include <type_traits>

#include "sim/core/error.hpp"
#include "sim/core/output_file.hpp"
#include "sim/trace/hdf5_handle.hpp"
#include "sim/trace/hdf5_trace_reader.hpp"
#include "sim/trace/hdf5_trace_writer.hpp"
#include "tests/trace/trace_comparison.hpp"

namespace trainsim {
namespace {

namespace fs = std::filesystem;

std::string temp_path(const std::string& name) {
  const fs::path dir = fs::path(::testing::TempDir()) / "trainsim_trace_round_trip_test";
  fs::create_directories(dir);
  return (dir / name).string();
}

// A run with every scalar distinct (a field written under another's name would show), two
// failures, a planned stop, and committed, interrupted and asynchronous checkpoints.
RunResult sample_run() {
  RunResult r;
  int i = 0;
  for_each_run_field(r, [&i](const char* name, auto& value) {
    ++i;
    // Fractions within [0, 1], as the writer checks (sim/core/checked_output.hpp).
    const std::string_view n = name;
    const bool fraction = n.ends_with("_ratio") || n.ends_with("_fraction");
    value = static_cast<std::decay_t<decltype(value)>>(fraction ? i / 1000.0 : i * 1000 + 0.25);
  });
  r.interruptions = {{3600.5, 3, "Faulty GPU", false, 1234.125, 700.0, 4},
                     {7200.25, -1, "planned maintenance", true, 0.0, 900.5, 4},
                     {86400.75, 0, "GPU Thermal Interface + Sensor", false, 60.0, 1800.0, 0}};
  r.checkpoints = {{1800.0, 1830.5, 1000, 1.5e12, true, false},
                   {3590.0, 3600.5, 2000, 1.5e12, false, false},
                   {5400.0, 5460.0, 3000000000000LL, 1.5e12, true, true}};
  return r;
}

TraceContents sample_contents(TraceLevel level) {
  TraceContents c;
  c.level = level;
  c.metadata.trainsim_version = "0.1.0";
  c.metadata.simgrid_version = "3.32.0";
  c.metadata.hdf5_version = "1.10.8";
  c.metadata.scenario_path = "tiny.ini";
  c.metadata.scenario_text = "[model]\npreset = llama3-8b\n# ünïcode comment\n";
  c.metadata.scenario_overrides = "training.grad_accum=4\n";
  c.metadata.scenario_resolved = "[model]\nlayers = 32\n";
  c.metadata.seed = 18446744073709551615ull;
  c.metadata.simulated_gpus = "one data-parallel replica";
  c.metadata.reduce_symmetry = true;
  c.summary.step_time_s = 1.25;
  c.summary.gpus = 8;
  c.summary.global_batch_samples = 16;
  c.summary.tokens_per_step = 16 * 512;
  c.summary.tokens_per_s = 16 * 512 / 1.25;
  c.summary.mfu = 0.41;
  c.summary.breakdown_s.forward = 0.4;
  c.summary.breakdown_s.idle = 0.1;
  c.summary.breakdown_s.ep_comm = 0.05;
  c.summary.comm_bytes_per_gpu.dp = 4e9;
  c.summary.peak_memory_bytes = 3.5e10;
  c.summary.dp_reductions = 3;
  c.summary.steps = 2;
  c.summary.inflight_microbatches = {2, 1};
  c.summary.sim_wall_s = 0.01;
  c.compute_model = "roofline";
  c.model_name = "llama3-8b";
  c.verdict = TraceVerdict{false, 85520809984.0, -1.5e9, "dense-hopper", "accuracy: a caveat"};
  c.steps = {{0, 0.0, 1.2, 8192, 16}, {1, 1.2, 2.5, 8192, 16}};
  TraceEvent e;
  e.rank = 2;
  e.stage = 1;
  e.stream = "compute";
  e.kind = "forward";
  e.layer = 1;
  e.microbatch = 3;
  e.start_s = 0.125;
  e.end_s = 0.25;
  e.flops = 1.5e12;
  c.events.push_back(e);
  e.stream = "dp_comm";
  e.kind = "dp_allreduce";
  e.layer = -1;
  e.microbatch = -1;
  e.bytes = 2.5e8;
  e.flops = 0;
  e.count = 7;
  c.events.push_back(e);
  c.events_rule = "all";
  c.events_observed = 2;
  c.max_events = 100;
  StageMemory m;
  m.stage = 0;
  m.layers = 2;
  m.parameters_per_gpu = 1e9;
  m.inflight_microbatches = 2;
  m.bytes.weights = 2e9;
  m.bytes.activations = 3e9;
  m.bytes.framework = 1.6e9;
  m.capacity_bytes = 8e10;
  c.memory = {m, m};
  c.memory[1].stage = 1;
  c.links = {{"n0.nic3_UP", "nic", 0.0, 0.25}, {"n0.nic3_UP", "nic", 0.5, 0.75}, {"class:nic", "nic", 0.0, 0.125}};
  c.run = sample_run();
  return c;
}

TEST(TraceRoundTrip, EveryFieldReadsBackEqual) {
  const std::string path = temp_path("round_trip.h5");
  const TraceContents written = sample_contents(TraceLevel::events);
  write_hdf5_trace(path, written);
  const TraceContents read = read_hdf5_trace(path);
  test::expect_equal_traces(written, read, true);
  EXPECT_EQ(read.level, TraceLevel::events);
  EXPECT_EQ(read.metadata.schema_version, k_trace_schema_version);
}

// A neighbour job's step (variations.neighbour) on /summary, schema 1.7; none without one.
TEST(TraceRoundTrip, NeighbourStepReadsBackEqual) {
  const std::string path = temp_path("neighbour.h5");
  TraceContents written = sample_contents(TraceLevel::summary);
  written.summary.neighbour = NeighbourStep{128, 3, 1.625, 314.5};
  write_hdf5_trace(path, written);
  const TraceContents read = read_hdf5_trace(path);
  ASSERT_TRUE(read.summary.neighbour.has_value());
  EXPECT_EQ(read.summary.neighbour->gpus, 128);
  EXPECT_EQ(read.summary.neighbour->steps, 3);
  EXPECT_EQ(read.summary.neighbour->step_time_s, 1.625);
  EXPECT_EQ(read.summary.neighbour->tokens_per_s_per_gpu, 314.5);
  const std::string alone = temp_path("no_neighbour.h5");
  write_hdf5_trace(alone, sample_contents(TraceLevel::summary));
  EXPECT_FALSE(read_hdf5_trace(alone).summary.neighbour.has_value());
}

TEST(TraceRoundTrip, RunRecordsReadBackEqual) {
  const std::string path = temp_path("run.h5");
  const TraceContents written = sample_contents(TraceLevel::summary);
  write_hdf5_trace(path, written);
  const TraceContents read = read_hdf5_trace(path);
  ASSERT_TRUE(read.run.has_value());
  EXPECT_EQ(read.run->interruptions.size(), 3u);
  EXPECT_EQ(read.run->checkpoints.size(), 3u);
  test::expect_equal_runs(*written.run, *read.run);
}

TEST(TraceRoundTrip, WithoutARunTheRunReadsBackAsNone) {
  const std::string path = temp_path("no_run.h5");
  TraceContents written = sample_contents(TraceLevel::events);
  written.run.reset();
  write_hdf5_trace(path, written);
  const TraceContents read = read_hdf5_trace(path);
  EXPECT_FALSE(read.run.has_value());
  test::expect_equal_traces(written, read, true);
}

// What trainsim wrote before schema 1.2: no /run, and /failures and /checkpoints reserved,
// empty groups; before 1.1, no /links either. Made from a 1.2 file by hand.
void make_old_schema(const std::string& path, const std::string& version) {
  const hdf5::QuietErrors quiet;
  const hdf5::Handle file(H5Fopen(path.c_str(), H5F_ACC_RDWR, H5P_DEFAULT), H5Fclose, "open " + path);
  for (const char* name : {"run", "failures", "checkpoints"})
    hdf5::check(H5Ldelete(file.get(), name, H5P_DEFAULT), std::string("delete ") + name);
  for (const char* name : {"failures", "checkpoints"}) {
    const hdf5::Handle group = hdf5::create_group(file.get(), name);
    hdf5::write_attribute(group.get(), "status", std::string("reserved; empty"));
  }
  if (version == "1.0") hdf5::check(H5Ldelete(file.get(), "links", H5P_DEFAULT), "delete links");
  hdf5::write_attribute(file.get(), "schema_version", version);
}

TEST(TraceRoundTrip, Schema10And11TracesReadWithoutARun) {
  for (const std::string version : {"1.0", "1.1"}) {
    const std::string path = temp_path("schema_" + version + ".h5");
    write_hdf5_trace(path, sample_contents(TraceLevel::events));
    make_old_schema(path, version);
    const TraceContents read = read_hdf5_trace(path);
    EXPECT_EQ(read.metadata.schema_version, version);
    EXPECT_FALSE(read.run.has_value()) << version;
    EXPECT_EQ(read.steps.size(), 2u) << version;
    EXPECT_EQ(read.links.size(), version == "1.0" ? 0u : 3u);
  }
}

TEST(TraceRoundTrip, LowerLevelsWriteEmptyTables) {
  const std::string path = temp_path("summary_level.h5");
  write_hdf5_trace(path, sample_contents(TraceLevel::summary));
  const TraceContents read = read_hdf5_trace(path);
  EXPECT_TRUE(read.steps.empty());
  EXPECT_TRUE(read.events.empty());
  EXPECT_EQ(read.memory.size(), 2u);
  write_hdf5_trace(path, sample_contents(TraceLevel::steps));
  const TraceContents steps = read_hdf5_trace(path);
  EXPECT_EQ(steps.steps.size(), 2u);
  EXPECT_TRUE(steps.events.empty());
}

TEST(TraceRoundTrip, NoTemporaryFileRemains) {
  // A folder of its own: ctest runs the other cases, which write traces, at the same time.
  const fs::path dir = fs::path(temp_path("no_temp")).concat(".d");
  fs::create_directories(dir);
  const std::string path = (dir / "no_temp.h5").string();
  write_hdf5_trace(path, sample_contents(TraceLevel::events));
  for (const auto& entry : fs::directory_iterator(fs::path(path).parent_path()))
    EXPECT_FALSE(is_temporary_name(entry.path().filename().string())) << entry.path();
}

TEST(TraceRoundTrip, EqualContentsGiveEqualFiles) {
  const std::string a = temp_path("equal_a.h5");
  const std::string b = temp_path("equal_b.h5");
  write_hdf5_trace(a, sample_contents(TraceLevel::events));
  write_hdf5_trace(b, sample_contents(TraceLevel::events));
  EXPECT_EQ(test::file_bytes(a), test::file_bytes(b));
}

TEST(TraceRoundTrip, NotATraceIsAnError) {
  const std::string path = temp_path("not_a_trace.h5");
  { std::ofstream(path) << "not hdf5"; }
  EXPECT_THROW(read_hdf5_trace(path), Error);
}

}  // namespace
}  // namespace trainsim
