#include "sim/workload/step_export.hpp"

#include <google/protobuf/util/delimited_message_util.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <sstream>

#include "chakra_et.pb.h"
#include "sim/core/error.hpp"
#include "sim/step/gradient_groups.hpp"
#include "sim/workload/comm_types.hpp"

namespace trainsim::workload {

namespace {

namespace pb = trainsim::chakra;
using engine::CollectiveOp;

// Times closer than this are the same instant (the engine's clock is exact; records carry
// sums of sleeps, a few ulps apart).
constexpr double k_same_time_s = 1e-9;
// A record is not cut closer than this to its ends (Chakra counts whole microseconds): what
// was issued that near its start or end is issued at that end.
constexpr double k_cut_margin_s = 1e-6;

bool is_compute(const ActivityRecord& r) {
  return r.stream == ActivityStream::compute || r.stream == ActivityStream::data;
}

// Whole microseconds from `start` to `end`, each end rounded to the microsecond, so that a
// stream's durations add up to its span without a drift.
std::uint64_t micros(double start, double end) {
  return static_cast<std::uint64_t>(std::max(0LL, std::llround(end * 1e6) - std::llround(start * 1e6)));
}

// One span of a stage's compute stream.
struct Piece {
  double start = 0;
  double end = 0;
  std::string name;
  double flops = 0;
  double bytes = 0;  // HBM bytes
};

// The stage's compute records cut at `cuts` (times inside them), in time order.
std::vector<Piece> compute_pieces(const std::vector<ActivityRecord>& records, std::vector<double> cuts) {
  std::vector<Piece> pieces;
  for (const ActivityRecord& r : records) {
    if (is_compute(r)) pieces.push_back({r.start_s, r.end_s, r.kind, r.flops, r.hbm_bytes});
    // The GEMM an overlapped TP collective pipelines with: compute beside the collective.
    if (r.comm.beside_s > 0) pieces.push_back({r.start_s, r.start_s + r.comm.beside_s, r.kind + ".gemm", 0, 0});
  }
  std::stable_sort(pieces.begin(), pieces.end(), [](const Piece& a, const Piece& b) { return a.start < b.start; });
  std::sort(cuts.begin(), cuts.end());
  std::vector<Piece> out;
  for (Piece p : pieces) {
    for (auto cut = std::upper_bound(cuts.begin(), cuts.end(), p.start + k_cut_margin_s);
         cut != cuts.end() && *cut < p.end - k_cut_margin_s; ++cut) {
      if (*cut < p.start + k_cut_margin_s) continue;  // too near the last cut
      const double share = (*cut - p.start) / (p.end - p.start);
      out.push_back({p.start, *cut, p.name, p.flops * share, p.bytes * share});
      p.flops -= p.flops * share;
      p.bytes -= p.bytes * share;
      p.start = *cut;
    }
    out.push_back(p);
  }
  return out;
}

// The last piece that ended by `t` (the compute that issued what starts at t), if any. The
// pieces are one stream's: their ends ascend as their starts do.
std::optional<size_t> ended_by(const std::vector<Piece>& pieces, double t) {
  const auto it = std::upper_bound(pieces.begin(), pieces.end(), t + k_cut_margin_s,
                                   [](double v, const Piece& p) { return v < p.end; });
  if (it == pieces.begin()) return std::nullopt;
  return static_cast<size_t>(it - pieces.begin()) - 1;
}

// The first piece that started once `t` had passed, named `name` when given.
std::optional<size_t> started_after(const std::vector<Piece>& pieces, double t, const std::string& name = "") {
  const auto it = std::lower_bound(pieces.begin(), pieces.end(), t - k_same_time_s,
                                   [](const Piece& p, double v) { return p.start < v; });
  for (auto i = it; i != pieces.end(); ++i)
    if (name.empty() || i->name == name) return static_cast<size_t>(i - pieces.begin());
  return std::nullopt;
}

const char* group_prefix(const ActivityCollective& c) {
  switch (c.group) {
    case ActivityGroup::tp:
      return "tp";
    case ActivityGroup::cp:
      return "cp";
    case ActivityGroup::ep:
      return "ep";
    case ActivityGroup::etp:
      return "etp";
    case ActivityGroup::gradient:
      return "dp";
    case ActivityGroup::expert_gradient:
      return "edp";
  }
  return "?";
}

std::vector<int> group_of(const ActivityCollective& c, const RankMapping& mapping, const ParallelSpec& par, int rank) {
  switch (c.group) {
    case ActivityGroup::tp:
      return mapping.group_of(rank, GroupAxis::tp);
    case ActivityGroup::cp:
      return mapping.group_of(rank, GroupAxis::cp);
    case ActivityGroup::ep:
      return mapping.group_of(rank, GroupAxis::ep);
    case ActivityGroup::etp:
      return mapping.group_of(rank, GroupAxis::etp);
    case ActivityGroup::gradient:
      return gradient_group(mapping, par, rank, false, c.scope);
    case ActivityGroup::expert_gradient:
      return gradient_group(mapping, par, rank, true, c.scope);
  }
  return {rank};
}

std::string pg_desc(const ActivityCollective& c, const std::vector<int>& group) {
  std::string name = group_prefix(c);
  if (c.group == ActivityGroup::gradient || c.group == ActivityGroup::expert_gradient) {
    if (c.scope == GradientScope::shard) name += ".shard";
    if (c.scope == GradientScope::replicas) name += ".replicas";
  }
  return name + "@" + std::to_string(*std::min_element(group.begin(), group.end()));
}

// A pipeline transfer's tag as the int32 Chakra's feeder reads (comm_tag, et_feeder_node.cpp).
std::int32_t tag_of(std::int64_t tag) {
  if (tag < 0 || tag > std::numeric_limits<std::int32_t>::max())
    throw InputError("trainsim run", "--chakra-out", std::to_string(tag),
                     "a pipeline transfer's tag does not fit the int32 comm_tag Chakra's feeder reads: export fewer "
                     "steps, micro-batches or model chunks");
  return static_cast<std::int32_t>(tag);
}

}  // namespace

void StepRecording::on_activity(const ActivityRecord& record) {
  if (record.replica == 0) stages_[record.stage].push_back(record);
}

StepExport::StepExport(const StepRecording& recording, const RankMapping& mapping, const ParallelSpec& parallel,
                       bool blocking_sends)
    : mapping_(mapping), parallel_(parallel), blocking_sends_(blocking_sends) {
  for (const auto& [stage, records] : recording.stages())
    stages_[stage] = build_stage(stage, records, recording.stages());
  number_groups();
}

void StepExport::number_groups() {
  // Each distinct group once: (kind, lowest rank) orders them; a rank's groups of one kind are
  // found once per group, from its first member, since every member finds the same group.
  std::map<std::pair<std::string, int>, std::vector<int>> found;
  const int world = mapping_.world_size();
  for (const auto& [stage, nodes] : stages_) {
    std::map<std::pair<ActivityGroup, GradientScope>, ActivityCollective> kinds;
    for (const Template& t : nodes)
      if (t.node.kind == NodeKind::collective)
        kinds.emplace(std::pair{t.collective.group, t.collective.scope}, t.collective);
    for (const auto& [key, c] : kinds) {
      std::vector<bool> covered(static_cast<size_t>(world), false);
      for (int rank = 0; rank < world; ++rank) {
        if (covered[static_cast<size_t>(rank)] || mapping_.coordinate(rank, ParallelAxis::pp) != stage) continue;
        std::vector<int> group = group_of(c, mapping_, parallel_, rank);
        std::sort(group.begin(), group.end());
        for (const int m : group) covered[static_cast<size_t>(m)] = true;
        const std::string desc = pg_desc(c, group);
        found.emplace(std::pair{desc.substr(0, desc.find('@')), group.front()}, std::move(group));
      }
    }
  }
  for (auto& [key, ranks] : found) {
    CommGroup g;
    g.id = static_cast<int>(groups_.size()) + 1;  // 0 is ASTRA-sim's "every rank"
    g.desc = key.first + "@" + std::to_string(key.second);
    g.ranks = std::move(ranks);
    group_ids_[g.desc] = g.id;
    groups_.push_back(std::move(g));
  }
}

std::vector<StepExport::Template> StepExport::build_stage(int stage, const std::vector<ActivityRecord>& records,
                                                          const std::map<int, std::vector<ActivityRecord>>& all) const {
  // The sends this stage posts: the transfers its pipeline peers received from it.
  std::vector<const ActivityRecord*> sends;
  for (const auto& [other, list] : all)
    for (const ActivityRecord& r : list)
      if (r.kind == "pp_transfer" && r.comm.peer_stage == stage) sends.push_back(&r);
  std::stable_sort(sends.begin(), sends.end(),
                   [](const ActivityRecord* a, const ActivityRecord* b) { return a->start_s < b->start_s; });

  std::vector<double> cuts;
  for (const ActivityRecord& r : records)
    if (!r.comm.collectives.empty()) cuts.push_back(r.start_s);
  for (const ActivityRecord* s : sends) cuts.push_back(s->start_s);
  const std::vector<Piece> pieces = compute_pieces(records, cuts);

  std::vector<Template> nodes;
  for (const Piece& p : pieces) {
    Template t;
    t.node.name = p.name;
    t.node.kind = NodeKind::compute;
    t.node.duration_us = micros(p.start, p.end);
    t.node.flops = p.flops;
    t.node.hbm_bytes = p.bytes;
    if (!nodes.empty()) t.deps.push_back(nodes.size() - 1);  // one compute stream
    t.order_s = p.start;
    t.rank_in_time = 2;
    nodes.push_back(std::move(t));
  }
  // Pieces are nodes 0 .. pieces.size()-1, in the same order.
  const auto after = [&](std::optional<size_t> piece, size_t node) {
    if (piece) nodes[*piece].deps.push_back(node);
  };
  const int rep = records.empty() ? 0 : records.front().rank;
  for (const ActivityRecord& r : records) {
    if (r.kind == "pp_transfer") {
      Template t;
      t.node.name = "pp_recv";
      t.node.kind = NodeKind::recv;
      t.node.comm_bytes = static_cast<std::int64_t>(std::llround(r.bytes));
      t.node.tag = tag_of(r.comm.tag);
      t.peer_stage = r.comm.peer_stage;
      t.order_s = r.end_s;
      t.rank_in_time = 0;
      nodes.push_back(std::move(t));
      after(started_after(pieces, r.end_s), nodes.size() - 1);
      continue;
    }
    std::vector<size_t> earlier_phases, this_record;
    for (int phase = 0; !r.comm.collectives.empty(); ++phase) {
      std::vector<size_t> this_phase;
      bool more = false;
      for (const ActivityCollective& c : r.comm.collectives) {
        if (c.phase > phase) more = true;
        if (c.phase != phase) continue;
        const std::vector<int> group = group_of(c, mapping_, parallel_, rep);
        if (group.size() < 2 || c.bytes <= 0) continue;  // a group of one takes no time
        Template t;
        t.node.name = r.kind;
        t.node.kind = NodeKind::collective;
        t.node.comm_type = chakra_comm_type(c.op);
        const double size = c.op == CollectiveOp::all_gather ? c.bytes / static_cast<double>(group.size()) : c.bytes;
        t.node.comm_bytes = static_cast<std::int64_t>(std::llround(size));
        t.collective = c;
        t.deps = earlier_phases;
        if (phase == 0)
          if (const auto issued = ended_by(pieces, r.start_s)) t.deps.push_back(*issued);
        t.order_s = r.start_s;
        t.rank_in_time = 1;
        nodes.push_back(std::move(t));
        this_phase.push_back(nodes.size() - 1);
        this_record.push_back(nodes.size() - 1);
      }
      if (!this_phase.empty()) earlier_phases = this_phase;
      if (!more) break;
    }
    // Gradient reductions are waited for by the optimizer; everything else by what starts next.
    const auto consumer = started_after(pieces, r.end_s, r.kind == "dp_reduce" ? "optimizer" : "");
    for (const size_t n : this_record) after(consumer, n);
  }
  for (const ActivityRecord* s : sends) {
    Template t;
    t.node.name = "pp_send";
    t.node.kind = NodeKind::send;
    t.node.comm_bytes = static_cast<std::int64_t>(std::llround(s->bytes));
    t.node.tag = tag_of(s->comm.tag);
    t.peer_stage = s->stage;
    if (const auto issued = ended_by(pieces, s->start_s)) t.deps.push_back(*issued);
    t.order_s = s->start_s;
    t.rank_in_time = 1;
    nodes.push_back(std::move(t));
    if (blocking_sends_) after(started_after(pieces, s->end_s), nodes.size() - 1);
  }

  // File order: by time, receives before what they release, compute last at a tie.
  std::vector<size_t> order(nodes.size());
  std::iota(order.begin(), order.end(), size_t{0});
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    if (std::abs(nodes[a].order_s - nodes[b].order_s) > k_same_time_s) return nodes[a].order_s < nodes[b].order_s;
    return nodes[a].rank_in_time < nodes[b].rank_in_time;
  });
  std::vector<size_t> position(nodes.size());
  for (size_t i = 0; i < order.size(); ++i) position[order[i]] = i;
  std::vector<Template> sorted;
  sorted.reserve(nodes.size());
  for (const size_t i : order) {
    Template t = std::move(nodes[i]);
    for (size_t& d : t.deps) d = position[d];
    std::sort(t.deps.begin(), t.deps.end());
    t.deps.erase(std::unique(t.deps.begin(), t.deps.end()), t.deps.end());
    sorted.push_back(std::move(t));
  }
  return sorted;
}

std::vector<ExportNode> StepExport::rank_nodes(int rank) const {
  const int stage = mapping_.coordinate(rank, ParallelAxis::pp);
  const auto it = stages_.find(stage);
  if (it == stages_.end()) return {};
  const std::vector<int> pipeline = mapping_.group_of(rank, GroupAxis::pp);
  std::vector<ExportNode> out;
  out.reserve(it->second.size());
  for (size_t i = 0; i < it->second.size(); ++i) {
    const Template& t = it->second[i];
    ExportNode n = t.node;
    n.id = i;
    n.deps.assign(t.deps.begin(), t.deps.end());
    if (n.kind == NodeKind::collective) {
      n.pg_desc = pg_desc(t.collective, group_of(t.collective, mapping_, parallel_, rank));
      n.pg = group_ids_.at(n.pg_desc);
    }
    if (n.kind == NodeKind::send || n.kind == NodeKind::recv) n.peer = pipeline[static_cast<size_t>(t.peer_stage)];
    out.push_back(std::move(n));
  }
  return out;
}

std::vector<int> parse_rank_list(const std::string& text, int world) {
  const auto refuse = [&](const std::string& rule) { throw InputError("trainsim run", "--ranks", text, rule); };
  std::vector<int> ranks;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    const size_t dash = item.find('-');
    const auto number = [&](const std::string& s) {
      if (s.empty() || s.size() > 9 || s.find_first_not_of("0123456789") != std::string::npos)
        refuse("expected ranks and ranges like 0-7,12");
      return std::stoi(s);
    };
    const int first = number(item.substr(0, dash));
    const int last = dash == std::string::npos ? first : number(item.substr(dash + 1));
    if (last < first) refuse("a range must not run backwards");
    if (last >= world) refuse("the job has ranks 0 to " + std::to_string(world - 1));
    for (int r = first; r <= last; ++r) ranks.push_back(r);
  }
  if (ranks.empty()) refuse("expected ranks and ranges like 0-7,12");
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  return ranks;
}

namespace {

// Each attribute in the value type Chakra's feeder reads it as (mlcommons/chakra @ 21585d8f,
// src/feeder/et_feeder_node.cpp, ETFeederNode's constructor): num_ops, comm_type and comm_size
// int64; tensor_size uint64; comm_src, comm_dst and comm_tag int32; is_cpu_op bool; pg_name a
// string. The feeder reads each from that one field, so another type reads as 0 there.
void add_int64(pb::Node& n, const std::string& name, std::int64_t v) {
  pb::Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_int64_val(v);
}

void add_int32(pb::Node& n, const std::string& name, std::int32_t v) {
  pb::Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_int32_val(v);
}

void add_text(pb::Node& n, const std::string& name, const std::string& v) {
  pb::Attribute* a = n.add_attr();
  a->set_name(name);
  a->set_string_val(v);
}

pb::NodeType node_type(NodeKind k) {
  switch (k) {
    case NodeKind::collective:
      return pb::COMM_COLL_NODE;
    case NodeKind::send:
      return pb::COMM_SEND_NODE;
    case NodeKind::recv:
      return pb::COMM_RECV_NODE;
    case NodeKind::compute:
    case NodeKind::skipped:
      break;
  }
  return pb::COMP_NODE;
}

}  // namespace

std::string chakra_trace_bytes(const std::vector<ExportNode>& nodes, int rank, int world) {
  std::ostringstream bytes;
  pb::GlobalMetadata meta;
  meta.set_version("0.0.4");
  pb::Attribute* producer = meta.add_attr();
  producer->set_name("producer");
  producer->set_string_val("trainsim run --chakra-out");
  pb::Attribute* ranks = meta.add_attr();
  ranks->set_name("world_size");
  ranks->set_int64_val(world);
  pb::Attribute* me = meta.add_attr();
  me->set_name("rank");
  me->set_int64_val(rank);
  google::protobuf::util::SerializeDelimitedToOstream(meta, &bytes);
  for (const ExportNode& e : nodes) {
    pb::Node n;
    n.set_id(e.id);
    n.set_name(e.name);
    n.set_type(node_type(e.kind));
    for (const std::uint64_t d : e.deps) n.add_data_deps(d);
    n.set_duration_micros(e.duration_us);
    pb::Attribute* cpu = n.add_attr();
    cpu->set_name("is_cpu_op");
    cpu->set_bool_val(false);
    if (e.kind == NodeKind::compute) {
      // ASTRA-sim's roofline mode reads both of every GPU compute node and times it as
      // num_ops / min(peak, HBM bandwidth x num_ops / tensor_size), skipping a node whose
      // tensor_size is 0 (astra-sim @ 518bd513, astra-sim/workload/Workload.cc,
      // Workload::issue_comp; astra-sim/system/Roofline.cc): a node without FLOPs (a data or
      // offload wait, the optimizer: trainsim records no FLOPs for them) has 0 bytes too, or
      // it would be 0 / 0 there.
      const std::int64_t ops = std::llround(e.flops);
      add_int64(n, "num_ops", ops);
      pb::Attribute* touched = n.add_attr();
      touched->set_name("tensor_size");
      touched->set_uint64_val(ops > 0 ? static_cast<std::uint64_t>(std::llround(e.hbm_bytes)) : 0);
    } else if (e.kind == NodeKind::collective) {
      add_int64(n, "comm_type", static_cast<std::int64_t>(e.comm_type));
      add_int64(n, "comm_size", e.comm_bytes);
      add_text(n, "pg_name", std::to_string(e.pg));
      add_text(n, "pg_desc", e.pg_desc);
    } else {
      add_int32(n, e.kind == NodeKind::send ? "comm_dst" : "comm_src", e.peer);
      add_int64(n, "comm_size", e.comm_bytes);
      add_int32(n, "comm_tag", e.tag);
    }
    google::protobuf::util::SerializeDelimitedToOstream(n, &bytes);
  }
  return bytes.str();
}

std::string export_prefix(const std::string& dir) {
  return dir + (dir.empty() || dir.back() == '/' ? "" : "/") + "step";
}

}  // namespace trainsim::workload
