// A stage actor's forward-backward pairs (sim/step/stage_pair.hpp): which tasks pair, and a
// pass cut into the pieces and collective groups the combined 1F1B plays.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <vector>

#include "sim/step/stage_pair.hpp"
#include "tests/step/stage_part_traffic.hpp"
#include "tests/step/stage_part_world.hpp"
#include "tests/step/test_scenario.hpp"

namespace trainsim {
namespace {

using engine::CollectiveOp;

// A pass of `layers` MoE layers: its token all-to-alls (two a layer), a token-count
// all-gather per layer, a TP all-reduce per layer and one once per pass.
PassCost moe_pass(int layers) {
  PassCost pass;
  pass.moe.layers = layers;
  pass.moe.head_s = 0.1;
  pass.moe.experts_s = 0.2;
  pass.moe.tail_s = 0.05;
  pass.moe.experts_wgrad_s = 0.08;
  pass.compute_s = 1.0 + layers * 0.35;
  GroupCollective tokens;
  tokens.group = CommGroup::ep;
  tokens.op = CollectiveOp::all_to_all;
  tokens.count = 2 * layers;
  tokens.layers = layers;
  tokens.tokens = true;
  GroupCollective counts = tokens;
  counts.op = CollectiveOp::all_gather;
  counts.count = layers;
  counts.tokens = false;
  GroupCollective tp;
  tp.count = layers;
  tp.layers = layers;
  GroupCollective once;
  pass.collectives = {tokens, counts, tp, once};
  return pass;
}

TEST(StagePair, PairableUnlessItsGradientsAreReducedAsItRuns) {
  ParallelSpec par;
  par.dp = 2;
  par.overlap_grad_reduce = true;
  const PipelineTask forward{0, 0, TaskPass::forward};
  const PipelineTask backward{0, 0, TaskPass::backward};
  EXPECT_TRUE(pairable(par, true, forward));
  EXPECT_TRUE(pairable(par, false, backward));
  EXPECT_FALSE(pairable(par, true, backward));
  par.overlap_grad_reduce = false;  // reduced after the step: it pairs
  EXPECT_TRUE(pairable(par, true, backward));
  EXPECT_FALSE(pairable(par, false, PipelineTask{0, 0, TaskPass::weight}));
}

// Megatron-Core's nodes (stage_pair.cpp, pair_chain): a forward's attention, router and
// permutation before its dispatch, its experts between, its unpermutation and residual on
// the communication stream after its combine, its output layer and loss after the last layer.
TEST(StagePair, AForwardIsCutAroundItsTokenAllToAlls) {
  const PassCost pass = moe_pass(2);
  const PipelineTask t{0, 0, TaskPass::forward};
  const PairChain chain = pair_chain("forward", t, pass, true);
  EXPECT_EQ(chain.task, &t);
  EXPECT_EQ(chain.pass, &pass);
  ASSERT_EQ(chain.pieces.size(), 5u);
  EXPECT_DOUBLE_EQ(chain.pieces[0], 0.1);  // the first head alone: nothing before the first layer
  EXPECT_DOUBLE_EQ(chain.pieces[1], 0.2);
  EXPECT_DOUBLE_EQ(chain.pieces[2], 0.1);  // the next head; the tail is not on the compute stream
  EXPECT_DOUBLE_EQ(chain.pieces[3], 0.2);
  EXPECT_DOUBLE_EQ(chain.pieces[4], 1.0);  // the non-MoE compute, after the last combine
  // The tails run after the combines on the communication stream, nothing before them.
  ASSERT_EQ(chain.comm_after.size(), 4u);
  EXPECT_EQ(chain.comm_before, (std::vector<double>{0.0, 0.0, 0.0, 0.0}));
  EXPECT_EQ(chain.comm_after, (std::vector<double>{0.0, 0.05, 0.0, 0.05}));
  // Both streams together hold the pass's compute, once.
  EXPECT_NEAR(std::accumulate(chain.pieces.begin(), chain.pieces.end(), 0.0) +
                  std::accumulate(chain.comm_after.begin(), chain.comm_after.end(), 0.0),
              pass.compute_s, 1e-12);
  // A forward holds nothing back; its dispatch (the counts' gather, then the tokens) before
  // the experts, its combine (the tokens) after them.
  for (const double h : chain.held) EXPECT_EQ(h, 0.0);
  ASSERT_EQ(chain.groups.size(), 4u);
  EXPECT_EQ(chain.groups[0], (std::vector<const GroupCollective*>{&pass.collectives[1], &pass.collectives[0]}));
  EXPECT_EQ(chain.groups[1], (std::vector<const GroupCollective*>{&pass.collectives[0]}));
  // Its TP collectives play inside its pieces; the once-per-pass one after the pair.
  ASSERT_TRUE(chain.tp);
  EXPECT_EQ(chain.tp->sequence, (std::vector<const GroupCollective*>{&pass.collectives[2], &pass.collectives[2]}));
}

// Each piece runs beside a collective at its own ratio (ep_overlap_cost.hpp): a forward's
// heads at the head's, its experts at the experts'.
TEST(StagePair, EachPieceCarriesItsRatioBesideACollective) {
  PassCost pass = moe_pass(2);
  pass.moe.head_beside = {1.2, 1.1};
  pass.moe.experts_beside = {1.3, 1.15};
  pass.moe.tail_beside = {1.5, 1.05};
  const PipelineTask t{0, 0, TaskPass::forward};
  const PairChain chain = pair_chain("forward", t, pass, true);
  ASSERT_EQ(chain.beside.size(), chain.pieces.size());
  EXPECT_EQ(chain.beside[0], pass.moe.head_beside);
  EXPECT_EQ(chain.beside[1], pass.moe.experts_beside);
  EXPECT_EQ(chain.beside[2], pass.moe.head_beside);
  EXPECT_EQ(chain.beside[3], pass.moe.experts_beside);
  // A backward's attention (its tail) at the tail's.
  const PipelineTask b{0, 0, TaskPass::backward};
  const PairChain back = pair_chain("backward", b, pass, true);
  ASSERT_EQ(back.beside.size(), 5u);
  EXPECT_EQ(back.beside[2], pass.moe.tail_beside);
  EXPECT_EQ(back.beside[4], pass.moe.tail_beside);
}

TEST(StagePair, ABackwardHoldsItsExpertsWeightGradientsBesideTheDispatchGradient) {
  const PassCost pass = moe_pass(1);
  const PipelineTask t{0, 0, TaskPass::backward};
  const PairChain delayed = pair_chain("backward", t, pass, true);
  ASSERT_EQ(delayed.held.size(), 3u);
  EXPECT_DOUBLE_EQ(delayed.held[1], 0.08);  // the experts' piece, before the dispatch's gradient
  // Its output layer's gradient (the non-MoE compute) first, then per layer the experts and
  // the attention's gradient; the unpermutation's and residual's gradients run before the
  // combine's gradient on the communication stream.
  ASSERT_EQ(delayed.pieces.size(), 3u);
  EXPECT_NEAR(delayed.pieces[0], 1.0, 1e-12);
  EXPECT_DOUBLE_EQ(delayed.pieces[1], 0.2);
  EXPECT_DOUBLE_EQ(delayed.pieces[2], 0.05);
  EXPECT_EQ(delayed.comm_before, (std::vector<double>{0.1, 0.0}));
  EXPECT_EQ(delayed.comm_after, (std::vector<double>{0.0, 0.0}));
  // The combine's gradient first, the dispatch's after the experts.
  EXPECT_EQ(delayed.groups[0], (std::vector<const GroupCollective*>{&pass.collectives[0]}));
  EXPECT_EQ(delayed.groups[1], (std::vector<const GroupCollective*>{&pass.collectives[1], &pass.collectives[0]}));
  EXPECT_DOUBLE_EQ(pair_chain("backward", t, pass, false).held[1], 0.0);
}

double sum(const std::vector<double>& v) {
  return std::accumulate(v.begin(), v.end(), 0.0);
}

// The combine node's kernels on the communication stream charge the other pass's piece that
// runs when they start: the backward's group i beside the forward's piece i, the forward's
// group i beside the backward's piece i + 1; none where no piece of the other pass is beside.
TEST(StagePair, TheCombinesKernelsChargeTheOtherPassesPieceBesideThem) {
  const PassCost pass = moe_pass(2);
  const PipelineTask f{1, 0, TaskPass::forward};
  const PipelineTask b{0, 0, TaskPass::backward};
  std::array<PairChain, 2> chains{pair_chain("backward", b, pass, false), pair_chain("forward", f, pass, false)};
  const std::vector<double> backward = chains[0].pieces, forward = chains[1].pieces;
  share_comm_kernels(chains);
  // The backward's unpermutation gradients (0.1 s, groups 0 and 2) beside the forward's heads.
  EXPECT_EQ(chains[1].pieces,
            (std::vector<double>{forward[0] + 0.1, forward[1], forward[2] + 0.1, forward[3], forward[4]}));
  // The forward's unpermutations (0.05 s, groups 1 and 3) beside the backward's attention.
  EXPECT_EQ(chains[0].pieces,
            (std::vector<double>{backward[0], backward[1], backward[2] + 0.05, backward[3], backward[4] + 0.05}));
  // A forward with no backward beside it (more layers than its partner): its last groups'
  // kernels run alone, charged to nothing.
  const PassCost longer = moe_pass(3);
  std::array<PairChain, 2> uneven{pair_chain("backward", b, pass, false), pair_chain("forward", f, longer, false)};
  const double before = sum(uneven[0].pieces) + sum(uneven[1].pieces);
  share_comm_kernels(uneven);
  // Charged: the backward's two unpermutation gradients and the forward's first two tails.
  EXPECT_NEAR(sum(uneven[0].pieces) + sum(uneven[1].pieces), before + 2 * 0.1 + 2 * 0.05, 1e-12);
}


// Qwen3 30B-A3B cut to 4 layers on one node, its 8 GPUs one expert-parallel group.
const testing::Settings k_pair{{"model.preset", "qwen3-30b-a3b"},
                               {"model.layers", "4"},
                               {"model.seq_len", "2048"},
                               {"training.grad_accum", "4"},
                               {"parallel.ep", "8"},
                               {"parallel.overlap_grad_reduce", "false"},
                               {"parallel.moe_a2a_overlap", "true"},
                               {"cluster.nodes", "1"}};

// Runs stage 0's first chunk: micro-batch 0's backward paired with micro-batch 1's forward,
// keeping every activity record; `measure(context, records, chains)` reads them after the pair.
// `kernel_s` >= 0: every piece's kernel in progress (PairChain::kernel_s) set to it.
template <class Measure>
std::vector<double> run_pair(const Scenario& scenario, Measure measure, double kernel_s = -1) {
  testing::KeptRecords records;
  StepOptions options;
  options.observer = &records;
  return testing::run_stage_part(
      scenario, 0,
      [&](StageContext& context) {
        testing::ComputeParts parts(context);
        StagePair pair(context, parts.compute, parts.layers, parts.traffic);
        const PipelineTask forward{1, 0, TaskPass::forward};
        const PipelineTask backward{0, 0, TaskPass::backward};
        const ChunkCosts& c = context.costs.chunks[0];
        std::array<PairChain, 2> chains{pair_chain("backward", backward, c.backward, false),
                                        pair_chain("forward", forward, c.forward, false)};
        if (kernel_s >= 0)
          for (PairChain& chain : chains) std::fill(chain.kernel_s.begin(), chain.kernel_s.end(), kernel_s);
        pair.run(chains);
        return measure(context, records.records, chains);
      },
      options);
}

TEST(StagePair, RunPlaysEveryPieceAndCollectiveAndHidesSomeOfTheAllToAlls) {
  const std::vector<double> out = run_pair(
      testing::scenario(k_pair),
      [&](StageContext& context, const std::vector<ActivityRecord>& records, std::array<PairChain, 2>& chains) {
        // The collectives ran on the other stream, each recorded (in this child process).
        double ep_s = 0, ep_records = 0;
        for (const ActivityRecord& r : records)
          if (r.stream != ActivityStream::compute) {
            ep_s += r.end_s - r.start_s;
            ++ep_records;
          }
        std::vector<double> v{context.clock.now(), context.account().ep_comm, ep_s, ep_records};
        for (const PairChain& chain : chains)
          v.insert(v.end(), {chain.compute_s, sum(chain.pieces), static_cast<double>(chain.leads_done),
                             static_cast<double>(chain.pieces.size()), static_cast<double>(chain.groups_done),
                             static_cast<double>(chain.groups.size())});
        return v;
      });
  ASSERT_EQ(out.size(), 16u);
  const double elapsed = out[0], ep_comm = out[1], ep_s = out[2], ep_records = out[3];
  double computed = 0;
  for (size_t c = 0; c < 2; ++c) {
    const double* chain = &out[4 + 6 * c];
    EXPECT_GE(chain[0], chain[1] * (1 - 1e-12)) << "chain " << c;  // its pieces, slower beside a collective
    EXPECT_EQ(chain[2], chain[3]) << "chain " << c;                  // every piece played
    EXPECT_EQ(chain[4], chain[5]) << "chain " << c;                  // every group of collectives done
    EXPECT_EQ(chain[5], 8.0) << "chain " << c;                       // two a layer
    computed += chain[0];
  }
  // One compute stream: the step is its pieces and its waits for the collectives.
  EXPECT_NEAR(elapsed, computed + ep_comm, 1e-9 * elapsed);
  // Every collective of the 16 groups recorded; the compute stream waited for less than
  // they took (the other pass's pieces ran beside them).
  EXPECT_GE(ep_records, 16.0);
  EXPECT_GT(ep_s, 0.0);
  EXPECT_LT(ep_comm, 0.5 * ep_s);
}

// Megatron-Core's stream placement (stage_pair.cpp, pair_chain): the backward's combine
// gradient starts once its output layer's gradient and its unpermutation's gradient (on the
// communication stream) are done; the forward's output layer starts once its last combine
// and the unpermutation after it are done; one communication stream runs its items one at a
// time.
TEST(StagePair, TheCombinesKernelsHoldTheCommunicationStreamAndTheOutputLayerWaitsForTheLastCombine) {
  const std::vector<double> out = run_pair(
      testing::scenario(k_pair),
      [&](StageContext&, const std::vector<ActivityRecord>& records, std::array<PairChain, 2>& chains) {
        std::vector<const ActivityRecord*> compute[2], comm[2], stream;
        for (const ActivityRecord& r : records) {
          const size_t pass = r.microbatch == 1 ? 1 : 0;
          (r.stream == ActivityStream::compute ? compute : comm)[pass].push_back(&r);
          if (r.stream != ActivityStream::compute) stream.push_back(&r);
        }
        double overlap = 0;  // of the communication stream's records with each other
        for (size_t i = 1; i < stream.size(); ++i)
          overlap = std::max(overlap, stream[i - 1]->end_s - stream[i]->start_s);
        return std::vector<double>{compute[0].front()->end_s + chains[0].comm_before[0],
                                   comm[0].front()->start_s,
                                   comm[1].back()->end_s + chains[1].comm_after.back(),
                                   compute[1].back()->start_s,
                                   chains[0].comm_before[0],
                                   chains[1].comm_after.back(),
                                   overlap};
      });
  ASSERT_EQ(out.size(), 7u);
  EXPECT_GT(out[4], 0.0);  // the unpermutation's gradient
  EXPECT_GT(out[5], 0.0);  // the unpermutation and residual
  EXPECT_GE(out[1], out[0] * (1 - 1e-12));
  EXPECT_GE(out[3], out[2] * (1 - 1e-12));
  EXPECT_LE(out[6], 1e-12);
}

// The event rule (Megatron-Core's ScheduleNode.stream_acquire_context: a node waits for its
// micro-batch's event, recorded when its previous node ended, on whichever stream): each
// piece of a pass starts once its group before it (and the combine node's kernels after it)
// is done, each group once its piece before it (and the kernels before it) is; the compute
// stream plays the two passes' pieces in turn, one at a time. EP 16 over two nodes at 100 Gb/s
// a NIC: all-to-alls longer than the pieces beside them, so that the waits bind.
TEST(StagePair, EachNodeWaitsForItsPassesNodeBeforeIt) {
  const std::vector<double> out = run_pair(
      testing::scenario(testing::merged(
          k_pair, {{"parallel.ep", "16"}, {"cluster.nodes", "2"}, {"cluster.nic_bandwidth", "100Gb/s"}})),
      [&](StageContext&, const std::vector<ActivityRecord>& records, std::array<PairChain, 2>& chains) {
        std::vector<const ActivityRecord*> compute[2], comm[2], stream;
        for (const ActivityRecord& r : records) {
          const size_t pass = r.microbatch == 1 ? 1 : 0;
          (r.stream == ActivityStream::compute ? compute : comm)[pass].push_back(&r);
          if (r.stream == ActivityStream::compute) stream.push_back(&r);
        }
        double late = 0;  // the most a node started before what it waits for had ended
        double checks = 0;
        for (size_t p = 0; p < 2; ++p) {
          const PairChain& chain = chains[p];
          if (compute[p].size() != chain.pieces.size()) return std::vector<double>{-1.0};
          size_t first = 0;  // the group's first collective in the pass's records
          for (size_t g = 0; g < chain.groups.size(); ++g) {
            const size_t n = chain.groups[g].size();
            if (first + n > comm[p].size()) return std::vector<double>{-2.0};
            // The group after piece g and the kernels before it.
            late = std::max(late, compute[p][g]->end_s + chain.comm_before[g] - comm[p][first]->start_s);
            // Piece g + 1 after the group and the kernels after it.
            late = std::max(late, comm[p][first + n - 1]->end_s + chain.comm_after[g] - compute[p][g + 1]->start_s);
            checks += 2;
            first += n;
          }
        }
        // The compute stream: backward and forward pieces in turn, one at a time.
        for (size_t i = 1; i < stream.size(); ++i) {
          late = std::max(late, stream[i - 1]->end_s - stream[i]->start_s);
          if ((stream[i - 1]->microbatch == 1) == (stream[i]->microbatch == 1)) late = 1.0;
        }
        return std::vector<double>{late, checks, stream.front()->microbatch == 0 ? 1.0 : 0.0};
      });
  ASSERT_EQ(out.size(), 3u) << (out.empty() ? 0.0 : out[0]);
  EXPECT_LE(out[0], 1e-12);
  EXPECT_EQ(out[1], 32.0);  // 8 groups a pass (4 layers), 2 checks each
  EXPECT_EQ(out[2], 1.0);   // the backward's piece first
}

// The communication stream at the compute stream's priority (Megatron-Core's default): a
// collective that may start while a piece runs (its item before it ended there) waits for the
// piece's kernel in progress; one that waited on a piece starts at its end. The alltoall
// dispatcher's forward dispatch is three collectives (counts, tokens, probabilities) one after
// another: with 1 ms of kernel in progress some start 1 ms after the one before, none later,
// and with none they follow at once.
TEST(StagePair, ACollectiveStartingBesideAPieceWaitsForItsKernelInProgress) {
  const auto gaps = [](double kernel_s) {
    return run_pair(
        testing::scenario(k_pair),
        [&](StageContext&, const std::vector<ActivityRecord>& records, std::array<PairChain, 2>&) {
          std::vector<const ActivityRecord*> comm;
          for (const ActivityRecord& r : records)
            if (r.stream != ActivityStream::compute) comm.push_back(&r);
          double waited = 0, longest = 0, shortest = 1.0;
          for (size_t i = 1; i < comm.size(); ++i) {
            const double gap = comm[i]->start_s - comm[i - 1]->end_s;
            if (comm[i]->microbatch != comm[i - 1]->microbatch) continue;  // another group
            if (std::abs(gap - 1e-3) < 1e-9) ++waited;
            longest = std::max(longest, gap);
            shortest = std::min(shortest, gap);
          }
          return std::vector<double>{waited, longest, shortest};
        },
        kernel_s);
  };
  const std::vector<double> with = gaps(1e-3);
  ASSERT_EQ(with.size(), 3u);
  EXPECT_GT(with[0], 0.0);
  EXPECT_LE(with[1], 1e-3 + 1e-9);
  EXPECT_GE(with[2], -1e-12);
  const std::vector<double> without = gaps(0.0);
  ASSERT_EQ(without.size(), 3u);
  EXPECT_EQ(without[0], 0.0);
}

}  // namespace
}  // namespace trainsim
