#include "sim/engine/reference_ring.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <string>

#include "sim/engine/algorithm_selection.hpp"
#include "sim/engine/ring_algorithm.hpp"

namespace trainsim::engine {

namespace sg4 = simgrid::s4u;

namespace {

void send_message(const Platform& platform, int src, int dst, double bytes) {
  std::vector<sg4::CommPtr> legs;
  // PXN legs are pipelined by NCCL (cut-through at chunk granularity): the relay starts
  // forwarding once the first bytes arrive, so a later leg starts one latency after the
  // previous one and the legs then share bandwidth, as in the aggregated plan.
  const Hops hops = platform.hops(src, dst);
  for (size_t i = 0; i < hops.size(); ++i) {
    if (i > 0) sg4::this_actor::sleep_for(platform.hop_latency_s(hops[i - 1]));
    legs.push_back(
        sg4::Comm::sendto_async(platform.host(hops[i].src), platform.host(hops[i].dst), static_cast<uint64_t>(bytes)));
  }
  for (const auto& c : legs) c->wait();
}

}  // namespace

CommActivity start_per_message_ring_all_reduce(const Platform& platform, const std::vector<int>& gpus, double bytes) {
  auto timing = std::make_shared<CommTiming>();
  timing->start_s = sg4::Engine::get_clock();
  const auto channels = ring_channels(gpus, platform);
  // NCCL's base latency, paid before the first message as the aggregated plan pays it.
  CollectiveCall call;
  call.algo = CollectiveAlgo::ring;
  call.gpus = gpus;
  call.bytes = bytes;
  const double base_s = nccl_base_latency_s(call, platform);
  sg4::Actor::create("per-message-ring", platform.host(0), [&platform, channels, bytes, timing, base_s]() {
    timing->start_s = sg4::Engine::get_clock();
    if (base_s > 0) sg4::this_actor::sleep_for(base_s);
    std::vector<sg4::ActorPtr> ranks;
    for (const auto& ring : channels) {
      const size_t n = ring.size();
      const double chunk = bytes / static_cast<double>(channels.size()) / static_cast<double>(n);
      std::vector<sg4::SemaphorePtr> received;
      for (size_t i = 0; i < n; ++i) received.push_back(sg4::Semaphore::create(0));
      for (size_t i = 0; i < n; ++i) {
        const int me = ring[i];
        const int next = ring[(i + 1) % n];
        auto mine = received[i];
        auto theirs = received[(i + 1) % n];
        // A rank forwards step s once step s-1's chunk has arrived, without waiting for its own
        // earlier messages to land (NCCL keeps NCCL_STEPS slots in flight): each message is its
        // own actor, which signals the next rank when its bytes are in.
        ranks.push_back(sg4::Actor::create(
            "rank" + std::to_string(me), platform.host(me), [&platform, me, next, n, chunk, mine, theirs]() {
              const size_t steps = 2 * (n - 1);
              std::vector<sg4::ActorPtr> messages;
              for (size_t s = 0; s < steps; ++s) {
                if (s > 0) mine->acquire();  // chunk of step s-1 arrived
                messages.push_back(sg4::Actor::create("msg", platform.host(me), [&platform, me, next, chunk, theirs]() {
                  send_message(platform, me, next, chunk);
                  theirs->release();
                }));
              }
              mine->acquire();  // the last chunk
              for (const auto& m : messages) m->join();
            }));
      }
    }
    for (const auto& r : ranks) r->join();
    timing->finish(sg4::Engine::get_clock());
  });
  return CommActivity(timing);
}

}  // namespace trainsim::engine
