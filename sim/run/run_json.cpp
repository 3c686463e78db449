#include "sim/run/run_json.hpp"

namespace trainsim {

namespace {

// Each record's fields with their JSON names: one list for writing and reading.
template <class Record, class Visit>
void for_each_interruption_field(Record& r, Visit&& visit) {
  visit("time_s", r.time_s);
  visit("node", r.node);
  visit("cause", r.cause);
  visit("planned", r.planned);
  visit("lost_work_s", r.lost_work_s);
  visit("downtime_s", r.downtime_s);
  visit("dp_after", r.dp_after);
}

template <class Record, class Visit>
void for_each_checkpoint_field(Record& r, Visit&& visit) {
  visit("start_s", r.start_s);
  visit("end_s", r.end_s);
  visit("steps", r.steps);
  visit("bytes", r.bytes);
  visit("committed", r.committed);
  visit("async", r.async);
}

template <class Record, class ForEach>
nlohmann::ordered_json records_json(const std::vector<Record>& records, ForEach&& for_each) {
  nlohmann::ordered_json rows = nlohmann::ordered_json::array();
  for (const Record& r : records) {
    nlohmann::ordered_json row;
    for_each(r, [&row](const char* name, const auto& value) { row[name] = value; });
    rows.push_back(std::move(row));
  }
  return rows;
}

template <class Record, class ForEach>
std::vector<Record> records_from(const nlohmann::json& rows, ForEach&& for_each) {
  std::vector<Record> records;
  for (const nlohmann::json& row : rows) {
    Record r;
    for_each(r, [&row](const char* name, auto& value) { row.at(name).get_to(value); });
    records.push_back(std::move(r));
  }
  return records;
}

}  // namespace

nlohmann::ordered_json run_json(const RunResult& r, bool records) {
  nlohmann::ordered_json j;
  for_each_run_field(r, [&j](const char* name, const auto& value) { j[name] = value; });
  if (records) {
    j["interruptions"] = records_json(r.interruptions, [](auto& x, auto&& v) { for_each_interruption_field(x, v); });
    j["checkpoints"] = records_json(r.checkpoints, [](auto& x, auto&& v) { for_each_checkpoint_field(x, v); });
  }
  return j;
}

RunResult run_from_json_scalars(const nlohmann::json& j) {
  RunResult r;
  for_each_run_field(r, [&j](const char* name, auto& value) { j.at(name).get_to(value); });
  return r;
}

RunResult run_from_json(const nlohmann::json& j) {
  RunResult r = run_from_json_scalars(j);
  r.interruptions = records_from<InterruptionRecord>(j.at("interruptions"),
                                                     [](auto& x, auto&& v) { for_each_interruption_field(x, v); });
  r.checkpoints =
      records_from<CheckpointRecord>(j.at("checkpoints"), [](auto& x, auto&& v) { for_each_checkpoint_field(x, v); });
  return r;
}

}  // namespace trainsim
