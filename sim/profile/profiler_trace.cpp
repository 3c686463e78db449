#include "sim/profile/profiler_trace.hpp"

#include <cmath>
#include <nlohmann/json.hpp>
#include <unordered_set>

#include "sim/core/error.hpp"
#include "sim/profile/trace_file.hpp"

namespace trainsim::profile {

namespace {

using nlohmann::json;

std::string lower(std::string s) {
  for (char& c : s)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return s;
}

bool contains(const std::string& text, const char* part) {
  return text.find(part) != std::string::npos;
}

enum class Category { op, annotation, runtime, kernel, memcpy, memset, other };

// Kineto's category names (libkineto ActivityType.cpp), with the capitalised spellings of
// traces written before PyTorch 1.10.
Category category_of(const std::string& cat) {
  const std::string c = lower(cat);
  if (c == "cpu_op" || c == "operator") return Category::op;
  if (c == "user_annotation") return Category::annotation;
  if (c == "cuda_runtime" || c == "cuda_driver" || c == "runtime") return Category::runtime;
  if (c == "kernel") return Category::kernel;
  if (c == "gpu_memcpy" || c == "memcpy") return Category::memcpy;
  if (c == "gpu_memset" || c == "memset") return Category::memset;
  return Category::other;
}

// Kineto writes ids and dimensions as JSON integers; a float there (1e300) is not one, and
// converting it would be undefined behaviour (found by tests/fuzz).
std::optional<std::int64_t> integer_arg(const json& args, const char* key) {
  const auto it = args.find(key);
  if (it == args.end() || !it->is_number_integer()) return std::nullopt;
  return it->get<std::int64_t>();
}

// A string field of an event or device, "" when absent or not a string (json::value would
// throw type_error 302 for a number there: found by tests/fuzz).
std::string text_of(const json& object, const char* key) {
  const auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string string_at(const json& array, std::size_t i) {
  if (!array.is_array() || i >= array.size() || !array[i].is_string()) return "";
  return array[i].get<std::string>();
}

std::vector<std::int64_t> dims_of(const json& dims) {
  std::vector<std::int64_t> out;
  for (const json& d : dims)
    if (d.is_number_integer()) out.push_back(d.get<std::int64_t>());
  return out;
}

// args."Input Dims": one entry per input, [] for a scalar or an absent optional, a list
// of ints for a tensor, a list of lists for a tensor list (PyTorch >= 2.1 records those).
std::vector<OpInput> inputs_of(const json& args) {
  std::vector<OpInput> inputs;
  const auto dims = args.find("Input Dims");
  if (dims == args.end() || !dims->is_array()) return inputs;
  const json empty = json::array();
  const auto types_it = args.find("Input type");
  const auto values_it = args.find("Concrete Inputs");
  const json& types = types_it == args.end() ? empty : *types_it;
  const json& values = values_it == args.end() ? empty : *values_it;
  for (std::size_t i = 0; i < dims->size(); ++i) {
    const json& d = (*dims)[i];
    OpInput in;
    if (d.is_array() && !d.empty() && d[0].is_array()) {
      for (const json& t : d) in.list.push_back(dims_of(t));
    } else if (d.is_array()) {
      in.shape = dims_of(d);
    }
    in.type = string_at(types, i);
    in.value = string_at(values, i);
    inputs.push_back(std::move(in));
  }
  return inputs;
}

std::string thread_of(const json& e) {
  const auto id = [&](const char* key) {
    const auto it = e.find(key);
    return it == e.end() ? std::string("?") : it->is_string() ? it->get<std::string>() : it->dump();
  };
  return id("pid") + "/" + id("tid");
}

// Another vendor's accelerator: ROCm writes HIP runtime calls (hipLaunchKernel) under
// "cuda_runtime" and names the device "AMD ..."; MTIA traces have mtia_* categories.
void refuse_other_vendors(const json& root, const json& events, const std::string& file) {
  const std::string rule_tail = ": trainsim's calibration tables are for NVIDIA GPUs (CUDA traces) only";
  if (const auto props = root.find("deviceProperties"); props != root.end() && props->is_array())
    for (const json& p : *props) {
      const std::string name =
          p.is_object() && p.contains("name") && p["name"].is_string() ? p["name"].get<std::string>() : "";
      const std::string n = lower(name);
      if (contains(n, "amd") || contains(n, "radeon") || contains(n, "instinct"))
        throw InputError(file, "deviceProperties name", name, "an AMD (ROCm) GPU" + rule_tail);
      if (contains(n, "mtia") || contains(n, "artemis"))
        throw InputError(file, "deviceProperties name", name, "a Meta MTIA accelerator" + rule_tail);
    }
  for (const json& e : events) {
    if (!e.is_object()) continue;
    const std::string cat = lower(text_of(e, "cat"));
    if (cat.rfind("mtia", 0) == 0) throw InputError(file, "cat", cat, "a Meta MTIA accelerator's trace" + rule_tail);
    if (category_of(cat) == Category::runtime && lower(text_of(e, "name")).rfind("hip", 0) == 0)
      throw InputError(file, "cuda_runtime name", text_of(e, "name"),
                       "a HIP call: an AMD (ROCm) GPU's trace" + rule_tail);
  }
}

}  // namespace

ProfilerTrace parse_profiler_trace(const std::string& text, const std::string& file) {
  json root;
  try {
    root = json::parse(text);
  } catch (const json::parse_error& e) {
    throw InputError(file, "", "",
                     "not JSON (parse error at byte " + std::to_string(e.byte) +
                         "): a PyTorch profiler trace is Chrome trace JSON, plain or gzip");
  } catch (const json::out_of_range&) {
    // nlohmann::json throws out_of_range 406, not a parse error, for a number beyond a double
    // (1e800: found by tests/fuzz).
    throw InputError(file, "", "", "a number in the JSON is beyond the range of a double");
  }
  const auto events_it = root.is_object() ? root.find("traceEvents") : root.end();
  if (!root.is_object() || events_it == root.end() || !events_it->is_array())
    throw InputError(file, "traceEvents", "",
                     "missing: a PyTorch profiler (Kineto) trace is a JSON object with a 'traceEvents' array");
  const json& events = *events_it;
  refuse_other_vendors(root, events, file);

  ProfilerTrace trace;
  trace.file = file;
  if (const auto props = root.find("deviceProperties");
      props != root.end() && props->is_array() && !props->empty() && (*props)[0].is_object())
    trace.gpu_name = text_of((*props)[0], "name");
  for (const json& e : events) {
    if (!e.is_object() || text_of(e, "ph") != "X") continue;
    const auto ts = e.find("ts");
    const auto dur = e.find("dur");
    if (ts == e.end() || dur == e.end() || !ts->is_number() || !dur->is_number()) continue;
    const Category cat = category_of(text_of(e, "cat"));
    static const json no_args = json::object();
    const json& args = e.contains("args") && e["args"].is_object() ? e["args"] : no_args;
    const double start = ts->get<double>();
    const double end = start + dur->get<double>();
    switch (cat) {
      case Category::op:
      case Category::annotation: {
        TraceOp op;
        op.name = text_of(e, "name");
        op.annotation = cat == Category::annotation;
        op.thread = thread_of(e);
        op.start_us = start;
        op.end_us = end;
        op.external_id = integer_arg(args, "External id");
        op.has_shapes = args.contains("Input Dims");
        op.inputs = inputs_of(args);
        trace.ops.push_back(std::move(op));
        break;
      }
      case Category::runtime: {
        const auto correlation = integer_arg(args, "correlation");
        if (!correlation) break;
        trace.runtime_calls.push_back(
            {text_of(e, "name"), thread_of(e), start, end, *correlation, integer_arg(args, "External id")});
        break;
      }
      case Category::kernel:
      case Category::memcpy:
      case Category::memset: {
        GpuActivity g;
        g.kind = cat == Category::kernel   ? GpuActivityKind::kernel
                 : cat == Category::memcpy ? GpuActivityKind::memcpy
                                           : GpuActivityKind::memset;
        g.name = text_of(e, "name");
        g.stream = thread_of(e);
        g.start_us = start;
        g.duration_us = dur->get<double>();
        g.correlation = integer_arg(args, "correlation");
        if (const auto bytes = args.find("bytes"); bytes != args.end() && bytes->is_number())
          g.bytes = bytes->get<double>();
        if (g.duration_us != std::floor(g.duration_us)) trace.integer_microseconds = false;
        trace.gpu.push_back(std::move(g));
        break;
      }
      case Category::other:
        break;
    }
  }

  std::size_t kernels = 0, with_id = 0, launched = 0;
  std::unordered_set<std::int64_t> launches;
  for (const RuntimeCall& r : trace.runtime_calls) launches.insert(r.correlation);
  for (const GpuActivity& g : trace.gpu) {
    if (g.kind != GpuActivityKind::kernel) continue;
    ++kernels;
    if (!g.correlation) continue;
    ++with_id;
    if (launches.contains(*g.correlation)) ++launched;
  }
  if (kernels == 0)
    throw InputError(file, "traceEvents", "",
                     "no GPU kernel events (cat 'kernel'): record the trace with ProfilerActivity.CUDA");
  if (with_id == 0)
    throw InputError(file, "args.correlation", "",
                     "none of the " + std::to_string(kernels) +
                         " GPU kernels has a correlation id linking it to its launch: the trace cannot pair kernels "
                         "with the ops that ran them");
  if (launched == 0)
    throw InputError(file, "args.correlation", "",
                     "no GPU kernel's correlation id matches a cuda_runtime launch event: the trace cannot pair "
                     "kernels with the ops that ran them");
  return trace;
}

ProfilerTrace read_profiler_trace(const std::string& path) {
  return parse_profiler_trace(read_trace_text(path), path);
}

}  // namespace trainsim::profile
