// What each MoE token dispatcher moves and which ops it runs (models/moe_dispatch.hpp):
// Megatron-Core's alltoall path sends a row per (token, expert) pair and permutes on the
// sender; DeepEP and HybridEP send a token once per destination rank and permute on the
// receiver.

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

#include "models/layer_workload.hpp"
#include "models/model_presets.hpp"
#include "models/moe_dispatch.hpp"
#include "tests/models/find_op.hpp"

namespace trainsim {
namespace {

using testing::find_op;

TEST(MoeDispatch, DestinationRanksAreHypergeometric) {
  EXPECT_DOUBLE_EQ(expected_destination_ranks(128, 8, 1), 1.0);
  // One expert a rank: every one of the top_k experts is its own rank.
  EXPECT_DOUBLE_EQ(expected_destination_ranks(8, 2, 8), 2.0);
  // 4 experts on 2 ranks, top 2: a rank holds neither with chance C(2,2)/C(4,2) = 1/6.
  EXPECT_DOUBLE_EQ(expected_destination_ranks(4, 2, 2), 2.0 * 5.0 / 6.0);
  // All the experts on one rank's worth of choices: top_k > E - E/ep, every rank is hit.
  EXPECT_DOUBLE_EQ(expected_destination_ranks(4, 3, 2), 2.0);
}

TEST(MoeDispatch, DestinationRanksMatchSampledRouting) {
  // Qwen3 30B-A3B's routing (128 experts, top 8) over 8 ranks, sampled uniformly.
  std::mt19937_64 rng(7);
  std::vector<int> experts(128);
  for (int e = 0; e < 128; ++e) experts[static_cast<size_t>(e)] = e;
  double total = 0;
  constexpr int k_tokens = 20000;
  for (int t = 0; t < k_tokens; ++t) {
    std::shuffle(experts.begin(), experts.end(), rng);
    std::vector<bool> hit(8, false);
    for (int i = 0; i < 8; ++i) hit[static_cast<size_t>(experts[static_cast<size_t>(i)] / 16)] = true;
    total += static_cast<double>(std::count(hit.begin(), hit.end(), true));
  }
  EXPECT_NEAR(total / k_tokens, expected_destination_ranks(128, 8, 8), 0.02);
}

struct Layer {
  ModelSpec model = *model_preset("qwen3-30b-a3b");
  TrainingSpec training;
  ParallelSpec parallel;
  Layer(MoeDispatcher d) {
    model.seq_len = 4096;
    parallel.ep = 8;
    parallel.dp = 8;
    parallel.moe_dispatcher = d;
  }
  PassOps ops() const { return transformer_layer_ops(model, training, parallel); }
};

TEST(MoeDispatch, AlltoallSendsEveryCopyAndDeepEpEachTokenOncePerRank) {
  const Layer a(MoeDispatcher::alltoall);
  EXPECT_DOUBLE_EQ(dispatched_rows_per_token(a.model, a.parallel), 8.0);
  for (const MoeDispatcher d : {MoeDispatcher::deepep, MoeDispatcher::hybridep}) {
    const Layer l(d);
    EXPECT_DOUBLE_EQ(dispatched_rows_per_token(l.model, l.parallel), expected_destination_ranks(128, 8, 8));
    EXPECT_NEAR(dispatched_rows_per_token(l.model, l.parallel), 5.339, 1e-3);
  }
}

TEST(MoeDispatch, DeepEpPermutesOnTheReceiverAndSortsNothing) {
  const Layer a(MoeDispatcher::alltoall), d(MoeDispatcher::deepep);
  const PassOps ao = a.ops(), dop = d.ops();
  const double tokens = 4096, h = a.model.hidden, k = 8, row = 2.0 * h;
  const double unique = tokens * expected_destination_ranks(128, 8, 8);
  // The sender's permute reads T rows and writes T top_k; the receiver's reads the rows one
  // per (token, source rank) and writes T top_k.
  EXPECT_DOUBLE_EQ(find_op(ao.forward, "moe.permute")->bytes, row * tokens * (1 + k));
  EXPECT_DOUBLE_EQ(find_op(dop.forward, "moe.permute")->bytes, row * (unique + tokens * k));
  EXPECT_DOUBLE_EQ(find_op(dop.forward, "moe.unpermute")->bytes, row * (unique + tokens * k));
  EXPECT_NE(find_op(ao.forward, "experts.sort"), nullptr);
  for (const char* name : {"experts.sort", "experts.unsort"}) EXPECT_EQ(find_op(dop.forward, name), nullptr) << name;
  // The host still waits for the received counts, once a forward.
  int syncs = 0;
  for (const Op& op : dop.forward) syncs += op.host_sync ? 1 : 0;
  EXPECT_EQ(syncs, 1);
  EXPECT_TRUE(find_op(dop.forward, "moe.permute")->host_sync);
  // Fewer kernels than the alltoall path: no chunk sort and its inverse (2 + 2), and none of
  // the alltoall dispatcher's preprocess sums and copies to the host (7 + 4,
  // models/moe_kernel_counts.hpp; the flex dispatcher's own preprocess is not counted).
  int kernels_a = 0, kernels_d = 0;
  for (const Op& op : ao.forward) kernels_a += op.kernels;
  for (const Op& op : dop.forward) kernels_d += op.kernels;
  EXPECT_EQ(kernels_a - kernels_d, 4 + 11);
}

TEST(MoeDispatch, AcrossDomainsDeepEpSendsATokenOncePerNode) {
  // DeepSeek-V3's routing (256 experts, top 8) at EP 64 over 8 nodes of 8: a token reaches
  // 7.68 ranks but 5.29 nodes on balance, so a remote peer gets 0.690 of a local peer's bytes.
  ModelSpec m = *model_preset("deepseek-v3");
  ParallelSpec p;
  p.ep = 64;
  p.moe_dispatcher = MoeDispatcher::deepep;
  EXPECT_NEAR(expected_destination_ranks(256, 8, 64), 7.676, 0.001);
  EXPECT_NEAR(expected_destination_ranks(256, 8, 8), 5.295, 0.001);
  EXPECT_DOUBLE_EQ(remote_peer_share(m, p, 8),
                   expected_destination_ranks(256, 8, 8) / expected_destination_ranks(256, 8, 64));
  EXPECT_NEAR(remote_peer_share(m, p, 8), 0.690, 0.001);
  // One rank a domain, or the whole group in one: nothing to share.
  EXPECT_DOUBLE_EQ(remote_peer_share(m, p, 1), 1.0);
  EXPECT_DOUBLE_EQ(remote_peer_share(m, p, 64), 1.0);
  p.moe_dispatcher = MoeDispatcher::alltoall;
  EXPECT_DOUBLE_EQ(remote_peer_share(m, p, 8), 1.0);
}

}  // namespace
}  // namespace trainsim
