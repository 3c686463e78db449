#pragma once
// Writes trace events in the Chrome trace event format (JSON object form, "X" complete
// events, timestamps in microseconds), which Perfetto and chrome://tracing open: one
// process per node, one thread per GPU stream (thread id = GPU index in node x 8 + stream
// index). Each pipeline transfer is a flow (Perfetto draws it as an arrow) from the pass that
// sent it to the transfer on the receiving stage (sim/trace/pipeline_flows.hpp). Written as
// sim/core/output_file.hpp writes every output.

#include <string>
#include <vector>

#include "sim/trace/trace_contents.hpp"

namespace trainsim {

/// `gpus_per_node` maps a global rank to its node (pid) and local GPU; a rank's tracks are
/// named "rank R STREAM", followed by `notes`' note on its (replica, stage) in parentheses
/// where there is one. Throws trainsim::Error when the file cannot be written.
void write_chrome_trace(const std::string& path, const std::vector<TraceEvent>& events, int gpus_per_node,
                        const TraceMetadata& metadata, const TrackNotes& notes = {});

}  // namespace trainsim
