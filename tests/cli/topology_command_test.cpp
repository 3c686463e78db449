// `trainsim topology` names the measurement behind each link efficiency it prints, as a user
// with only the repository can look it up (issue 55, item 7).

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "support/run_trainsim.hpp"

namespace trainsim {
namespace {

struct Case {
  std::vector<std::string> sets;
  std::string nvlink;   ///< expected in the NVLink source line
  std::string network;  ///< expected in the network source line
};

// The rest of the line that `label` starts in `text`; empty when there is none.
std::string line_after(const std::string& text, const std::string& label) {
  const auto at = text.find(label);
  if (at == std::string::npos) return "";
  const auto begin = at + label.size();
  return text.substr(begin, text.find('\n', begin) - begin);
}

TEST(TopologyCommand, NamesTheMeasurementBehindEachEfficiency) {
  for (const Case& c : std::vector<Case>{
           {{}, "nccl-tests ring ~370 GB/s busbw on 8 x H100 (NVIDIA/nccl-tests#212", "(NVIDIA/nccl-tests#290)"},
           {{"cluster.preset=dgx-a100"}, "234.89 GB/s busbw (stas00/ml-engineering", "(NVIDIA/nccl-tests#119)"},
           {{"cluster.preset=dgx-b200"}, "(MooreThreads/SimuMax@4dcaae5", "(NVIDIA/nccl-tests#290)"},
           {{"cluster.preset=hgx-h800"}, "the H100's NVLink 4 figure, a stated assumption", "(NVIDIA/nccl-tests#290)"},
           {{"cluster.network=spectrum-x"}, "(NVIDIA/nccl-tests#212", "NVIDIA newsroom"},
           {{"cluster.fabric=ideal"}, "line rate (the ideal fabric)", "line rate (the ideal fabric)"},
       }) {
    std::vector<std::string> args{"topology", testing::source_path("scenarios/default.ini")};
    for (const std::string& s : c.sets) args.insert(args.end(), {"--set", s});
    const auto r = testing::run_trainsim(args);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    EXPECT_NE(line_after(r.out, "\n                NVLink: ").find(c.nvlink), std::string::npos) << r.out;
    EXPECT_NE(line_after(r.out, "\n                network: ").find(c.network), std::string::npos) << r.out;
    EXPECT_EQ(r.out.find("public.md"), std::string::npos) << r.out;
  }
}

}  // namespace
}  // namespace trainsim
