#pragma once
// Chakra's collective types (CommType, the comm_type attribute) and the collective engine's
// operations, both ways: the replay runs a trace's collectives as engine operations, the
// export writes the step's engine operations as Chakra types.

#include <optional>

#include "sim/engine/collective.hpp"
#include "sim/workload/chakra_node.hpp"

namespace trainsim::workload {

/// The engine operation a trace's collective runs as (a barrier as an all-reduce,
/// REDUCE_SCATTER_BLOCK as a reduce-scatter); none for REDUCE, GATHER and SCATTER.
std::optional<engine::CollectiveOp> engine_op(CommType type);

/// The Chakra type an engine collective is written as (point-to-point as an all-to-all).
CommType chakra_comm_type(engine::CollectiveOp op);

}  // namespace trainsim::workload
