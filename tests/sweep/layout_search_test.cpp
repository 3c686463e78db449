// The layout search with the global batch given as training.global_batch (issue 55 item 9):
// every layout it keeps runs that batch, grad_accum = global_batch / (micro_batch x dp)
// recomputed layout by layout, and the splits where that is not whole are counted and left out.

#include <gtest/gtest.h>

#include <algorithm>

#include "sim/sweep/layout_search.hpp"
#include "support/run_trainsim.hpp"

namespace trainsim::sweep {
namespace {

// Four layers of Llama 3 8B on one 8-GPU node, its own split tp 2 x pp 2 (dp 2) with 12
// samples a step: dp 8 never divides 12, dp 4 only at micro-batch 1.
const char* k_scenario = R"([model]
preset = llama3-8b
layers = 4
seq_len = 512
[training]
global_batch = 12
[parallel]
tp = 2
pp = 2
[cluster]
preset = dgx-h100
nodes = 1
fabric = ideal
calibration = none
)";

std::string value(const LayoutSearch& search, const Layout& l, const std::string& key) {
  const auto at = std::find(search.keys.begin(), search.keys.end(), key) - search.keys.begin();
  return l.values.at(static_cast<size_t>(at));
}

TEST(LayoutSearch, GlobalBatchKeptLayoutByLayout) {
  const LayoutSearch search = search_layouts(testing::write_temp_file("gbs.ini", k_scenario), {});
  ASSERT_FALSE(search.fitting.empty());
  bool dp4 = false;
  for (const Layout& l : search.fitting) {
    const int dp = std::stoi(value(search, l, "parallel.dp"));
    const int mb = std::stoi(value(search, l, "training.micro_batch"));
    const int ga = std::stoi(value(search, l, "training.grad_accum"));
    EXPECT_EQ(mb * ga * dp, 12) << "dp " << dp << " mb " << mb << " ga " << ga;
    EXPECT_NE(dp, 8);
    dp4 = dp4 || dp == 4;
  }
  EXPECT_TRUE(dp4);
  // dp 8 at micro-batch 1, 2 and 4 (tp 1, pp 1); dp 4 at 2 and 4 (tp 2 or pp 2); dp 2 at 4.
  EXPECT_GT(search.batch_indivisible, 3);
}

TEST(LayoutSearch, GlobalBatchFromTheCommandLineToo) {
  std::string text = k_scenario;
  text.replace(text.find("global_batch = 12"), 17, "grad_accum = 3");  // 6 samples at dp 2
  const LayoutSearch search =
      search_layouts(testing::write_temp_file("accum.ini", text), {"training.global_batch=12"});
  ASSERT_FALSE(search.fitting.empty());
  for (const Layout& l : search.fitting)
    EXPECT_EQ(std::stoi(value(search, l, "training.micro_batch")) * std::stoi(value(search, l, "training.grad_accum")) *
                  std::stoi(value(search, l, "parallel.dp")),
              12);
}

}  // namespace
}  // namespace trainsim::sweep
