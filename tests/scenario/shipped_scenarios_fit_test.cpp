// Every shipped scenario (the default, the examples, the validation rows: each ran as
// written) fits in its GPUs' memory by the memory model; layer-check scenarios ("# kind:
// layer": one layer on one GPU for trainsim layer) excepted.

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "models/memory_budget.hpp"
#include "sim/scenario/scenario_loader.hpp"

namespace trainsim {
namespace {

TEST(ShippedScenarios, FitInMemory) {
  const std::filesystem::path root(TRAINSIM_SOURCE_DIR);
  std::vector<std::filesystem::path> files{root / "scenarios/default.ini"};
  for (const char* folder : {"scenarios/examples", "scenarios/validation"})
    for (const auto& entry : std::filesystem::directory_iterator(root / folder))
      if (entry.path().extension() == ".ini") files.push_back(entry.path());
  ASSERT_GT(files.size(), 10u);
  for (const auto& file : files) {
    std::stringstream text;
    text << std::ifstream(file).rdbuf();
    if (text.str().find("\n# kind: layer") != std::string::npos) continue;
    const Scenario s = load_scenario(file.string());
    const MemoryReport m = estimate_memory(s.model, s.training, s.parallel, s.gpu_memory_bytes());
    EXPECT_TRUE(m.fits()) << file.filename() << ": peak stage " << m.peak_stage().stage << " needs "
                          << m.peak_stage().bytes.total() / (1 << 30) << " GiB of " << s.gpu_memory_bytes() / (1 << 30);
  }
}

TEST(ShippedScenarios, Llama3LayoutFitsWithoutRecomputationOnlyWithItsSchedule) {
  // Llama 3 §3.3.2: 405B at TP 8 x PP 16, 8K sequences, no activation checkpointing, thanks to
  // the interleaved schedule with one layer fewer on the first and last stages and sharded
  // gradients. Megatron-LM's layout of the same job (2 chunks per rank, fp32 gradients on
  // every rank) does not fit without recomputation.
  const std::filesystem::path root(TRAINSIM_SOURCE_DIR);
  const Scenario meta = load_scenario((root / "scenarios/examples/llama3-405b-meta-schedule.ini").string());
  ASSERT_EQ(meta.training.recompute, Recompute::none);
  const MemoryReport fits = estimate_memory(meta.model, meta.training, meta.parallel, meta.gpu_memory_bytes());
  EXPECT_TRUE(fits.fits());
  EXPECT_EQ(fits.stages.front().layers, 7);
  EXPECT_EQ(fits.stages.back().layers, 7);
  EXPECT_EQ(fits.stages[1].layers, 8);

  Scenario megatron = meta;
  megatron.parallel.virtual_stages = 2;
  megatron.parallel.zero = 1;
  const MemoryReport over =
      estimate_memory(megatron.model, megatron.training, megatron.parallel, megatron.gpu_memory_bytes());
  EXPECT_FALSE(over.fits());
}

}  // namespace
}  // namespace trainsim
