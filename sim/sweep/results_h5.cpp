// results.h5 layout (column datasets, one element per point, in the sweep's order):
//   /point                int64
//   /params/<key>         variable-length strings, one dataset per varied key
//   /status, /reason, /trace   variable-length strings
//   /fits, /capacity_bytes, /headroom_bytes   the columns of result_columns.hpp: text ones
//                         as variable-length strings, numbers as float64 (NaN where unknown)
//   /validation_family, /caveats   variable-length strings (sim/scenario/accuracy_caveats.hpp)
//   /metrics/<name>       float64, NaN where the point has no result
//   attributes on /: source (the sweep file or "batch"), parameters (the varied keys,
//   comma-separated), columns (result_columns.hpp's, comma-separated), metrics (the metric
//   names, comma-separated), trainsim_version.
// pandas: pd.DataFrame({k: f["metrics"][k][()] for k in f["metrics"]}) and so on.

#include <hdf5.h>

#include <cmath>
#include <limits>

#include "sim/core/output_file.hpp"
#include "sim/core/utf8_text.hpp"
#include "sim/sweep/result_columns.hpp"
#include "sim/sweep/results_table.hpp"
#include "sim/sweep/step_summary.hpp"
#include "sim/trace/hdf5_handle.hpp"
#include "trainsim/version.hpp"

namespace trainsim::sweep {

namespace {

using hdf5::check;
using hdf5::Handle;

// Datasets without modification times (as the trace's, trace/hdf5_handle.cpp): HDF5 stamps each
// object with the clock by default, so two runs of one sweep wrote results.h5 files that
// differed in 84 bytes, the same scenario's results not the same bit for bit.
Handle untimed_dataset_plist() {
  Handle plist(H5Pcreate(H5P_DATASET_CREATE), H5Pclose, "create a dataset property list");
  check(H5Pset_obj_track_times(plist.get(), false), "disable time tracking");
  return plist;
}

Handle string_type() {
  Handle t(H5Tcopy(H5T_C_S1), H5Tclose, "copy a string type");
  check(H5Tset_size(t.get(), H5T_VARIABLE), "set up a string type");
  check(H5Tset_cset(t.get(), H5T_CSET_UTF8), "set up a string type");
  return t;
}

void write_strings(hid_t parent, const std::string& name, const std::vector<std::string>& values) {
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "create the dataspace of " + name);
  const Handle type = string_type();
  const Handle plist = untimed_dataset_plist();
  Handle set(H5Dcreate2(parent, name.c_str(), type.get(), space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT), H5Dclose,
             "create dataset " + name);
  // Declared UTF-8 (a reason may quote a path that is not): such bytes as U+FFFD, as in --json.
  std::vector<std::string> utf8;
  utf8.reserve(values.size());
  for (const std::string& v : values) utf8.push_back(utf8_replaced(v));
  std::vector<const char*> ptrs;
  for (const std::string& v : utf8) ptrs.push_back(v.c_str());
  if (n > 0)
    check(H5Dwrite(set.get(), type.get(), H5S_ALL, H5S_ALL, H5P_DEFAULT, ptrs.data()), "write dataset " + name);
}

template <typename T>
void write_numbers(hid_t parent, const std::string& name, hid_t file_type, hid_t memory_type,
                   const std::vector<T>& values) {
  const hsize_t n = values.size();
  Handle space(H5Screate_simple(1, &n, nullptr), H5Sclose, "create the dataspace of " + name);
  const Handle plist = untimed_dataset_plist();
  Handle set(H5Dcreate2(parent, name.c_str(), file_type, space.get(), H5P_DEFAULT, plist.get(), H5P_DEFAULT), H5Dclose,
             "create dataset " + name);
  if (n > 0)
    check(H5Dwrite(set.get(), memory_type, H5S_ALL, H5S_ALL, H5P_DEFAULT, values.data()), "write dataset " + name);
}

void write_attribute(hid_t object, const std::string& name, const std::string& value) {
  Handle space(H5Screate(H5S_SCALAR), H5Sclose, "create the dataspace of " + name);
  const Handle type = string_type();
  Handle attr(H5Acreate2(object, name.c_str(), type.get(), space.get(), H5P_DEFAULT, H5P_DEFAULT), H5Aclose,
              "create attribute " + name);
  const char* text = value.c_str();
  check(H5Awrite(attr.get(), type.get(), &text), "write attribute " + name);
}

std::string joined(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ",") + s;
  return out;
}

void write_contents(hid_t root, const SweepPlan& plan, const std::vector<PointResult>& results) {
  const auto& metrics = summary_metric_names();
  write_attribute(root, "source", plan.source);
  write_attribute(root, "parameters", joined(plan.parameter_names));
  std::vector<std::string> column_names;
  for (const ResultColumn& c : result_columns()) column_names.push_back(c.name);
  write_attribute(root, "columns", joined(column_names));
  write_attribute(root, "metrics", joined(metrics));
  write_attribute(root, "trainsim_version", k_version);

  std::vector<long long> index;
  std::vector<std::string> status, reason, trace, family, caveats;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    index.push_back(plan.points[i].index);
    status.push_back(status_name(results[i].status));
    reason.push_back(results[i].reason);
    trace.push_back(results[i].trace);
    family.push_back(results[i].validation_family);
    caveats.push_back(results[i].caveats);
  }
  write_numbers(root, "point", H5T_STD_I64LE, H5T_NATIVE_LLONG, index);
  write_strings(root, "status", status);
  write_strings(root, "reason", reason);
  write_strings(root, "trace", trace);
  for (const ResultColumn& c : result_columns()) {
    std::vector<std::string> texts;
    std::vector<double> numbers;
    for (const PointResult& r : results) {
      if (c.text) texts.push_back(c.text(r));
      else numbers.push_back(c.number(r));
    }
    if (c.text) write_strings(root, c.name, texts);
    else write_numbers(root, c.name, H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, numbers);
  }
  write_strings(root, "validation_family", family);
  write_strings(root, "caveats", caveats);

  const Handle params = hdf5::create_group(root, "params");
  for (size_t k = 0; k < plan.parameter_names.size(); ++k) {
    std::vector<std::string> column;
    for (const SweepPoint& p : plan.points) column.push_back(p.values[k]);
    write_strings(params.get(), plan.parameter_names[k], column);
  }
  const Handle group = hdf5::create_group(root, "metrics");
  for (size_t m = 0; m < metrics.size(); ++m) {
    std::vector<double> column;
    for (const PointResult& r : results)
      column.push_back(m < r.metrics.size() ? r.metrics[m] : std::numeric_limits<double>::quiet_NaN());
    write_numbers(group.get(), metrics[m], H5T_IEEE_F64LE, H5T_NATIVE_DOUBLE, column);
  }
}

}  // namespace

void write_results_h5(const std::string& path, const SweepPlan& plan, const std::vector<PointResult>& results) {
  AtomicOutputFile file(path);
  hdf5::write_file(file, [&](hid_t root) { write_contents(root, plan, results); });
  file.commit();
}

}  // namespace trainsim::sweep
