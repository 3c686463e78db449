#include "sim/engine/nccl_rack_model.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>

#include "sim/core/error.hpp"

namespace trainsim::engine {

namespace {

// NVIDIA/nccl at 5067397c. Bandwidths in GB/s, latencies in microseconds.
constexpr double k_nvlink_per_gpu = 18 * 40.1;  // src/graph/topo.h SM100_NVLINK_BW, 18 NVLink 5 links
constexpr std::array<double, 20> k_sm100_inter_speeds{96.0, 86.0, 80.0, 48.0, 45.1, 42.0, 40.0, 30.0, 24.0, 22.0,
                                                      20.0, 17.5, 15.0, 12.0, 6.0,  3.0,  2.4,  1.2,  0.24, 0.12};
constexpr int k_max_channels = 32;  // MAXCHANNELS / 2, the search's channel limit; NCCL_MAX_NVLS_ARITY
constexpr double k_nvls_efficiency = 0.74;  // tuning.cc nvlsEfficiency, Blackwell

// Per protocol LL, LL128, Simple (tuning.cc ncclTunerConstantsDefaults, Blackwell rows, index by
// racks: [0] 2 racks, [1] more).
constexpr std::array<double, 3> k_ring_base{6.6, 14.0, 8.4};
constexpr std::array<double, 3> k_tree_base{6.8, 14.0, 8.4};
constexpr std::array<double, 3> k_ring_nvlink_hop{0.6, 1.9, 3.4};
constexpr std::array<double, 3> k_tree_nvlink_hop{0.6, 1.25, 4.0};
constexpr std::array<double, 3> k_ring_net_hop{2.7, 4.0, 14.0};
constexpr std::array<double, 3> k_tree_net_hop{5.0, 8.5, 14.0};
constexpr double k_nvls_tree_nvlink_hop = 25.0, k_nvls_tree_net_hop = 20.9;
constexpr double k_pat_base = 8.0, k_pat_net_hop = 14.0;
constexpr double k_net_overhead = 1.0;               // getNetOverhead: not x86 (Grace)
constexpr std::array<double, 2> k_ll_max{39.0, 20.4};  // llMaxBws, CPU index 0 (not AMD)
constexpr double k_ring_ll128_per_channel = 40.0;
constexpr std::array<double, 2> k_tree_per_channel{42.8, 24.0};
constexpr std::array<double, 2> k_tree_ll128_per_channel{31.67, 20.0};
constexpr std::array<double, 2> k_nvls_tree_per_channel{96.0, 80.0};
// tuning.cc treeCorrectionFactor, per protocol, by log2(bytes / 64).
constexpr std::array<std::array<double, 24>, 3> k_tree_correction{{
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9},
}};
// A tree channel's chunk, one step of its protocol's buffer (src/init.cc DEFAULT_LL_BUFFSIZE,
// DEFAULT_LL128_BUFFSIZE, DEFAULT_BUFFSIZE over device.h NCCL_STEPS = 8; enqueue.cc
// calcCollChunking: chunkSteps 1 for a tree, LL's data half its 64 KiB step, LL128's 120 of
// every 128 bytes of its 600 KiB step), the data bytes: LL 32 KiB, LL128 576000, Simple 512 KiB.
constexpr std::array<double, 3> k_tree_chunk{32.0 * 1024, 576000.0, 512.0 * 1024};
// The data bytes one thread forwards at a time on a GPU-to-GPU (NVLink) hop, where the protocol
// polls a flag in every line the peer writes (device/prims_ll.h: a 16-byte line a thread, 8
// bytes of data; prims_ll128.h: a warp's slice of 16 128-byte lines, 120 bytes of data each,
// device.h ncclProtoGrainSize, 1920 bytes a warp, so 60 a thread); Simple waits for a whole step.
constexpr std::array<double, 2> k_line_bytes_per_thread{8.0, 1920.0 / 32};

constexpr std::array<double, 3> k_wire_efficiency{0.5, 120.0 / 128.0, 1.0};

// Threads a ring or tree channel runs and the bytes per thread before enqueue.cc drops a channel,
// per protocol LL, LL128, Simple (device.h NCCL_LL_MAX_NTHREADS, NCCL_LL128_MAX_NTHREADS,
// NCCL_SIMPLE_MAX_NTHREADS; comm.h NCCL_*_THREAD_THRESHOLD; tuning.cc: the ring's LL threshold x
// ranks). The Simple ring's 256 threads below PCI_BW are out of reach across racks.
constexpr std::array<int, 3> k_threads{512, 640, 512};
constexpr std::array<double, 3> k_thread_threshold{8.0, 8.0, 64.0};

int index_of(NcclProtocol p) { return p == NcclProtocol::ll ? 0 : p == NcclProtocol::ll128 ? 1 : 2; }

int log2i(double x) { return x >= 1 ? static_cast<int>(std::bit_width(static_cast<unsigned long long>(x))) - 1 : -1; }

// NCCL's speed for a path whose slowest part carries `Bps`: the largest SM100 speed not above it.
double speed_at_most(double GBps) {
  for (const double s : k_sm100_inter_speeds)
    if (s <= GBps) return s;
  return k_sm100_inter_speeds.back();
}

double speed_at_least(double GBps) {
  for (auto it = k_sm100_inter_speeds.rbegin(); it != k_sm100_inter_speeds.rend(); ++it)
    if (*it >= GBps) return *it;
  return k_sm100_inter_speeds.front();
}

struct Graphs {
  int ring_channels = 0;
  double ring_bw = 0;  // per channel
  int heads = 0;
  double nvls_intra = 0, nvls_inter = 0;
};

Graphs search(const RackGroup& g) {
  const int ppn = g.ranks / g.racks;
  const int nics = g.nics_per_rack > 0 ? g.nics_per_rack : ppn;
  const double nic = speed_at_most(g.nic_Bps / 1e9);
  Graphs r;
  r.ring_bw = nic;
  r.ring_channels = std::min({ppn, nics, k_max_channels, static_cast<int>(k_nvlink_per_gpu / nic)});
  if (r.ring_bw >= 25.0 && !(r.ring_bw < 50.0 && r.ring_channels > 4)) {  // ncclTopoDupChannels
    const int dup = std::min(2 * r.ring_channels, k_max_channels);
    r.ring_bw /= (dup + r.ring_channels - 1) / r.ring_channels;
    r.ring_channels = dup;
  }
  r.heads = g.nvls ? nccl_rack_nvls_heads(ppn, nics) : 0;
  r.nvls_intra = std::min(nic, speed_at_most(k_nvlink_per_gpu / (r.heads + 1)));
  r.nvls_inter = std::min(nic, std::max(r.nvls_intra, speed_at_least(2 * r.nvls_intra)));
  return r;
}

double tree_correction(double bytes, NcclProtocol p) {
  const int l = log2i(std::floor(bytes / 64));
  return l >= 0 && l < 23 ? k_tree_correction[static_cast<size_t>(index_of(p))][static_cast<size_t>(l)] : 1.0;
}

// enqueue.cc calcCollChunking for the LL128 tree on `channels`: its chunk, halved while the
// buffer makes few chunks a channel for the tree's depth, then a multiple of the 1920-byte grain.
double tree_ll128_chunk(double bytes, int ranks, int racks, int channels) {
  const double ppn = static_cast<double>(ranks) / racks;
  const double steps = 1 + log2i(racks) + 0.1 * ppn;
  double c = k_tree_chunk[1];
  const auto chunks = [&] { return std::floor(bytes / (channels * c)); };  // integer division
  while (chunks() < steps * 64 / ppn && c > 131072) c = std::floor(c / 2);
  while (chunks() < steps * 16 / ppn && c > 32768) c = std::floor(c / 2);
  return std::floor(c / 1920) * 1920;
}

// A tree all-reduce's pipeline fill on `channels` (graph channels at `channel_GBps` each): the
// first chunk climbs the rack's chain (ppn - 1 NVLink hops), log2 R network hops up and down,
// and the chain back down; it reaches the last stage after the sum of the hops' grains at the
// channel's speed less the largest (whose time the bandwidth term already holds). A network hop
// hands on a whole step (transport/net.cc sendProxyProgress posts a step once the GPU has
// written all of it: the LL lines' flags, LL128's tail); an NVLink hop hands on what one pass of
// the channel's threads forwards, for LL and LL128 a line a thread (7/10 of the warps reduce up
// the tree, the rest broadcast down: device/all_reduce.h runTreeSplit), for Simple a step.
double tree_fill_s(NcclProtocol p, double bytes, int ranks, int racks, int channels, int graph_channels,
                   double channel_GBps) {
  const size_t pi = static_cast<size_t>(index_of(p));
  const double per_channel = bytes / graph_channels;
  const double step =
      std::min(per_channel, p == NcclProtocol::ll128 ? tree_ll128_chunk(bytes, ranks, racks, channels)
                                                     : k_tree_chunk[pi]);
  double up = step, down = step;
  if (p != NcclProtocol::simple) {
    const int up_threads = k_threads[pi] * 7 / (10 * 32) * 32;
    up = std::min(step, up_threads * k_line_bytes_per_thread[pi]);
    down = std::min(step, (k_threads[pi] - up_threads) * k_line_bytes_per_thread[pi]);
  }
  const double chain = ranks / racks - 1.0, net = 2.0 * log2i(racks);
  return (chain * (up + down) + net * step - step) / (channel_GBps * 1e9);
}

// nvls.cc ncclNvlsTreeSm100Tuning: NVLS-tree's channels and chunk sizes.
struct NvlsTreeTuning {
  int channels = 24;
  double chunk = 128 * 1024, tree_max = 128 * 1024;
};

NvlsTreeTuning nvls_tree_tuning(int racks, int ppn, double nic_GBps) {
  NvlsTreeTuning t;
  if (racks == 2 && nic_GBps >= 48) {
    t.channels = 32;
    if (ppn <= 4) t.chunk = t.tree_max = 256 * 1024;
    else if (ppn >= 16) t.tree_max = 64 * 1024;
  } else if (nic_GBps >= 96) {
    if (ppn <= 8) {
      t.chunk = t.tree_max = 256 * 1024;
    } else {
      t.channels = 32;
      t.tree_max = ppn < 32 ? 128 * 1024 : 64 * 1024;
    }
  }
  return t;
}

// enqueue.cc calcCollChunking for NVLS-tree on `channels`: bytes per loop.
double nvls_tree_loop_bytes(double bytes, const NvlsTreeTuning& t, int channels, int heads) {
  double c = std::min(t.chunk, t.tree_max);
  const double ops = static_cast<double>(channels) * heads;
  if (bytes < 32 * ops * c && c > 262144) c = 262144;
  if (bytes < 16 * ops * c && c > 131072) c = 131072;
  if (bytes < 4 * ops * c && c > 65536) c = 65536;
  if (bytes < ops * c && c > 32768) c = 32768;
  return ops * c;
}

}  // namespace

int nccl_rack_nvls_heads(int per_rack, int nics) {
  return std::max(1, std::min({k_max_channels, per_rack, nics > 0 ? nics : per_rack}));
}

std::vector<RackEstimate> nccl_rack_estimates(CollectiveOp op, double bytes, const RackGroup& group) {
  if (group.racks < 2 || group.ranks < group.racks || group.ranks % group.racks != 0)
    throw Error("nccl_rack_estimates: a group spans 2 or more racks with as many GPUs in each");
  const double n = group.ranks;
  const int racks = group.racks;
  const int ppn = group.ranks / racks;
  const size_t i2 = racks <= 2 ? 0 : 1;
  const Graphs gr = search(group);
  const bool all_reduce = op == CollectiveOp::all_reduce;
  const double nsteps = all_reduce ? 2 * (n - 1) : n - 1;
  const double inter_steps = all_reduce ? 2.0 * (racks - 1) : racks - 1.0;
  const double log_racks = log2i(racks);
  std::vector<RackEstimate> out;
  // The ring's, tree's and PAT's channels: the communicator's under its CTA limits and by
  // default (nccl_channels.hpp); NVLS-tree's its own.
  const int comm_channels = nccl_comm_channels(gr.ring_channels, gr.ring_bw, racks, group.ctas);
  const int default_channels = nccl_comm_channels(gr.ring_channels, gr.ring_bw, racks, nccl_cta_limits({}, {}));
  const NvlsTreeTuning nvls_tuning = nvls_tree_tuning(racks, ppn, group.nic_Bps / 1e9);
  const int nvls_channels = nccl_nvls_channels(nvls_tuning.channels, group.ctas);
  // `linear_GBps`: the part of the algorithm bandwidth that grows with the channels (the caps
  // tuning.cc takes for the whole communicator, LL's llMaxBw, left out); the channels run reach
  // their share of it, at most the model's bandwidth.
  auto add = [&](CollectiveAlgo a, NcclProtocol p, double latency_us, double algo_GBps, double fill,
                 double linear_GBps) {
    const size_t pi = static_cast<size_t>(index_of(p));
    int channels = nvls_channels, full = nvls_tuning.channels;
    double running = channels;
    if (a != CollectiveAlgo::nvls_tree) {
      // PAT runs no thread count of tuning.cc's, so enqueue.cc keeps all its channels.
      const int threads = a == CollectiveAlgo::pat ? 0 : k_threads[pi];
      const double threshold =
          k_thread_threshold[pi] * (a == CollectiveAlgo::ring && p == NcclProtocol::ll ? n : 1.0);
      channels = nccl_collective_channels(comm_channels, bytes, threads, threshold);
      full = default_channels;
      // The share is taken at the count enqueue.cc rounds down (bytes / (threads x threshold)),
      // so that a buffer one channel larger never finishes sooner: the rounding's sawtooth (each
      // channel carrying up to twice the threshold) is under 1 % of these latency-bound times.
      running = channels < comm_channels && threads > 0
                    ? std::clamp(bytes / (threads * threshold), 1.0, static_cast<double>(comm_channels))
                    : channels;
    }
    const double share = std::min(1.0, running / full);
    out.push_back({a, p, 1e-6 * latency_us + bytes / (algo_GBps * 1e9), 1e-6 * latency_us, algo_GBps * 1e9, fill,
                   channels, std::min(algo_GBps, share * linear_GBps) * 1e9});
  };
  if (op != CollectiveOp::all_reduce && op != CollectiveOp::all_gather && op != CollectiveOp::reduce_scatter)
    return out;
  for (const NcclProtocol p : {NcclProtocol::ll, NcclProtocol::ll128, NcclProtocol::simple}) {
    const size_t pi = static_cast<size_t>(index_of(p));
    // Ring.
    double bus = gr.ring_channels * gr.ring_bw;
    const double ring_ll_GBps = bus * 0.5 * n / nsteps;
    if (p == NcclProtocol::ll) bus = std::min(k_ll_max[i2], bus * 0.5);
    if (p == NcclProtocol::ll128) bus = std::min(bus * 0.92, gr.ring_channels * k_ring_ll128_per_channel);
    const double ring_GBps = bus * n / nsteps;
    // LL's llMaxBw is the communicator's; LL128's caps are per channel.
    const double ring_channel_GBps = p == NcclProtocol::ll ? ring_ll_GBps : ring_GBps;
    const double overhead = k_net_overhead * (p == NcclProtocol::simple ? 3 : 1);
    const double inter_hop = ppn == 1 ? k_tree_net_hop[pi] : k_ring_net_hop[pi];
    double ring_us = k_ring_base[pi] + (nsteps - inter_steps) * std::max(k_ring_nvlink_hop[pi], overhead) +
                     inter_steps * inter_hop;
    // The plateau on the communicator's channels (tuning.cc ncclTopoGetAlgoTime: comm->nChannels).
    if (all_reduce && p == NcclProtocol::simple && bytes / (comm_channels * n) >= 64) ring_us *= 1.4;
    add(CollectiveAlgo::ring, p, ring_us, ring_GBps, 0.0, ring_channel_GBps);
    if (all_reduce) {
      // Tree.
      // The tree's graph as the ring's (bwIntra = bwInter, a stated simplification of the search).
      double tbus = std::min(gr.ring_channels * gr.ring_bw * 0.92, gr.ring_channels * k_tree_per_channel[i2]);
      const double tree_ll_GBps = tbus / 3.8 * 0.5 * tree_correction(bytes, p);
      if (p == NcclProtocol::ll) tbus = std::min(tbus / 3.8, k_ll_max[i2]);
      if (p == NcclProtocol::ll128)
        tbus = std::min(tbus * 120.0 / 128.0, gr.ring_channels * k_tree_ll128_per_channel[i2]);
      const double tree_GBps = tbus * 0.5 * tree_correction(bytes, p);
      const double tree_linear_GBps = p == NcclProtocol::ll ? tree_ll_GBps : tree_GBps;
      const double tree_hop = k_tree_net_hop[pi];
      const double tree_us = k_tree_base[pi] + 2 * ((ppn - 1) * k_tree_nvlink_hop[pi] + log_racks * tree_hop);
      // Its chain and tree hops hand on their grains at the channel's speed and the protocol's
      // wire efficiency, the chunk sized on the channels the tree runs (as add() counts them).
      const double channel_GBps = gr.ring_bw * k_wire_efficiency[pi];
      const int tree_channels = nccl_collective_channels(comm_channels, bytes, k_threads[pi], k_thread_threshold[pi]);
      add(CollectiveAlgo::double_binary_tree, p, tree_us, tree_GBps,
          tree_fill_s(p, bytes, group.ranks, racks, tree_channels, gr.ring_channels, channel_GBps), tree_linear_GBps);
      // NVLS-tree: Simple only, 2 or more heads.
      if (p == NcclProtocol::simple && gr.heads >= 2) {
        const double h = gr.heads;
        const double intra = gr.nvls_intra * k_nvls_efficiency * (h - 1) / h * 2;
        const double inter = gr.nvls_inter * (racks <= 2 ? 2 : 1);
        const double cap = k_nvls_tree_per_channel[i2];
        const double nbus = h * std::min({intra, inter, cap});
        const double nvls_GBps = nbus * n / nsteps;
        // Fill: each stage hands on a loop at its own rate by NCCL's model (the two in-rack NVLS
        // stages at the intra bandwidth, the 2 log2 R network hops at the inter); the slowest
        // stage's own time is the bandwidth term already.
        const double loop = std::min(bytes, nvls_tree_loop_bytes(bytes, nvls_tuning, nvls_channels, gr.heads));
        const double intra_s = loop / (h * std::min(intra, cap) * n / nsteps * 1e9);
        const double inter_s = loop / (h * std::min(inter, cap) * n / nsteps * 1e9);
        const double fill = 2 * intra_s + 2 * log_racks * inter_s - std::max(intra_s, inter_s);
        add(CollectiveAlgo::nvls_tree, p, k_nvls_tree_nvlink_hop + 2 * log_racks * k_nvls_tree_net_hop, nvls_GBps,
            fill, nvls_GBps);
      }
    }
    // PAT: all-gather and reduce-scatter at one GPU per rack, Simple (tuning.cc ncclPatEnable).
    if ((op == CollectiveOp::all_gather || op == CollectiveOp::reduce_scatter) && ppn == 1 &&
        p == NcclProtocol::simple) {
      const double pbus = gr.ring_channels * gr.ring_bw * 0.75;
      add(CollectiveAlgo::pat, p, k_pat_base + log_racks * (k_pat_net_hop / 3.5) + n * 2.8, pbus, 0.0, pbus);
    }
  }
  return out;
}

RackEstimate nccl_rack_choice(CollectiveOp op, double bytes, const RackGroup& group) {
  const auto all = nccl_rack_estimates(op, bytes, group);
  if (all.empty()) throw Error("nccl_rack_choice: NCCL's model has no algorithm for " + op_name(op));
  return *std::min_element(all.begin(), all.end(),
                           [](const RackEstimate& a, const RackEstimate& b) { return a.time_s < b.time_s; });
}

}  // namespace trainsim::engine
