#include "sim/trace/trace_level.hpp"

#include "sim/core/error.hpp"

namespace trainsim {

TraceLevel parse_trace_level(const std::string& text, const std::string& option) {
  if (text == "summary") return TraceLevel::summary;
  if (text == "steps") return TraceLevel::steps;
  if (text == "events") return TraceLevel::events;
  throw InputError("", option, text, "must be one of summary, steps, events");
}

std::string to_string(TraceLevel level) {
  switch (level) {
    case TraceLevel::summary:
      return "summary";
    case TraceLevel::steps:
      return "steps";
    case TraceLevel::events:
      return "events";
  }
  return "events";
}

}  // namespace trainsim
