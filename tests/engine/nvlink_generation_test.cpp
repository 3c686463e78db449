// The measured NVLink rates follow the GPU preset's gpu.nvlink_generation, not its name
// (issue 59 item 2: adding a GPU is a preset file, no list in the code to extend).

#include <gtest/gtest.h>

#include "topologies/cluster_spec.hpp"
#include "topologies/protocol_efficiency.hpp"

namespace trainsim {
namespace {

ClusterSpec renamed(const char* preset, const char* name, int generation) {
  ClusterSpec c = *cluster_preset(preset);
  c.gpu.name = name;
  c.gpu.calibration_gpu.clear();
  c.gpu.nvlink_generation = generation;
  return c;
}

TEST(NvlinkGeneration, PicksTheMeasuredRatesWhateverTheName) {
  const ProtocolEfficiency h100 = protocol_efficiency(*cluster_preset("dgx-h100"));
  const ProtocolEfficiency b200 = protocol_efficiency(*cluster_preset("dgx-b200"));
  ASSERT_NE(h100.nvlink, b200.nvlink);
  // A GPU of one's own on the DGX H100 node, declared NVLink 4 or 5.
  EXPECT_EQ(protocol_efficiency(renamed("dgx-h100", "my-gpu", 4)).nvlink, h100.nvlink);
  EXPECT_EQ(protocol_efficiency(renamed("dgx-h100", "my-gpu", 4)).nvls, h100.nvls);
  EXPECT_EQ(protocol_efficiency(renamed("dgx-b200", "h100-like-name", 5)).nvlink, b200.nvlink);
  // None declared: line rate, said to be unmeasured, even under a shipped GPU's name.
  const ProtocolEfficiency none = protocol_efficiency(renamed("dgx-h100", "h100-sxm", 0));
  EXPECT_EQ(none.nvlink, 1.0);
  EXPECT_EQ(none.nvlink_source, "line rate (no measurement)");
}

TEST(NvlinkGeneration, EveryShippedGpuStatesOne) {
  for (const std::string& name : gpu_preset_names()) {
    const GpuSpec g = *gpu_preset(name);
    EXPECT_GE(g.nvlink_generation, 3) << name;
    EXPECT_FALSE(g.architecture.empty()) << name;
  }
}

}  // namespace
}  // namespace trainsim
