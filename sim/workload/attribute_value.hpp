#pragma once
// The value of a Chakra attribute as an integer, a flag list or text, whatever encoding its
// producer chose: ASTRA-sim's generators write comm_type and comm_size as int64 and is_cpu_op
// as bool, Chakra's PyTorch converter comm_src/comm_dst/comm_tag as int32, others uint32 or
// uint64 (the custom ring sample: int32; the microbenchmarks: int64).

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "chakra_et.pb.h"

namespace trainsim::workload {

/// The value as a signed integer: every integer kind and bool (as 0/1). nullopt for a double,
/// text, a list, an unset value, or a uint64 above INT64_MAX.
std::optional<std::int64_t> attribute_int(const trainsim::chakra::Attribute& a);

/// The value as flags: a bool list, an integer list (non-zero = true), or a single bool or
/// integer (one flag). nullopt for other kinds.
std::optional<std::vector<bool>> attribute_flags(const trainsim::chakra::Attribute& a);

/// The value as text (string values verbatim, numbers printed, lists as [a, b]); for the
/// GlobalMetadata attributes, which are only reported.
std::string attribute_text(const trainsim::chakra::Attribute& a);

}  // namespace trainsim::workload
