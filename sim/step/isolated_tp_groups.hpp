#pragma once
// Under --full (symmetry not reduced) which tensor-parallel groups run their collectives on
// links nothing else crosses, so that each collective may take the time the same collective
// took on another such group (LayerCollectives::run reuses it, as the reduced
// simulation does for its one replica).
//
// Why it matters: a TP group issues about 1,500 collectives a step in the 405B example (its
// layers' all-gathers and reduce-scatters, every micro-batch, forward, recomputation and
// backward): 3 M at 16,384 GPUs. SimGrid's ptask model re-solves every variable and active
// constraint at each of their starts and ends (src/kernel/lmm/fair_bottleneck.cpp,
// FairBottleneck::do_solve @ v3.32: no selective update), so `--full` grew as the square of
// the cluster (634 s at 16,384 GPUs, sim/step/README.md).
//
// Why it is exact: a GPU-to-GPU message inside an NVLink domain crosses the sender's NVLink
// port up and the receiver's down and nothing else (FabricRoutes::route). A group all of
// whose GPUs share a domain and whose ports no other message of the step may cross (no
// pipeline transfer, no EP, expert-TP, CP or gradient-group collective, no PXN relay, no
// other job's) runs its collectives alone on its links, one at a time (its stage actor
// issues them in turn), so each takes what the same collective takes on any such group: the
// ptask solver shares a link only among the variables that cross it. The durations agree to
// rounding (the engine advances an action's remaining work at every event of the
// simulation); tests/step/isolated_tp_test.cpp holds --full with and without the reuse
// within 1e-9.

#include <vector>

#include "sim/engine/platform.hpp"
#include "sim/scenario/scenario.hpp"
#include "topologies/rank_mapping.hpp"

namespace trainsim {

/// Per link number of `platform`'s routes: whether a message other than a TP group's inside
/// its NVLink domain may cross it (engine::mark_message_links). Accumulates over jobs sharing
/// the platform (call once per job).
void mark_links_beyond_tp(const Scenario& s, const RankMapping& mapping, const engine::Platform& platform,
                          std::vector<bool>& links);

/// Per rank of the job (`mapping`): whether its TP group lies in one NVLink domain and none
/// of its GPUs' NVLink ports is among `links` (mark_links_beyond_tp over every job on the
/// platform).
std::vector<bool> isolated_tp_groups(const RankMapping& mapping, const engine::Platform& platform,
                                     const std::vector<bool>& links);

}  // namespace trainsim
