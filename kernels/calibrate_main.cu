// trainsim-calibrate: measures the kernels a training step runs and writes a calibration
// table (README.md, "Calibration table format"; read by sim/compute/calibration_table.hpp).
//
//   trainsim-calibrate [--quick] [--device N] [--dtypes bf16,fp8,...] [--out FILE]
//   trainsim-calibrate --layer h=4096,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=1 [--out FILE]
//   trainsim-calibrate --list [--quick]     shapes and rows of the grid; needs no GPU
//
// Exit codes: 0 done, 1 no usable GPU or a CUDA error outside a section, 2 bad arguments.

#include <chrono>
#include <cstdio>
#include <exception>
#include <fstream>
#include <functional>
#include <iostream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench_context.hpp"
#include "benchmarks.hpp"
#include "calibration_grid.hpp"
#include "device_info.hpp"
#include "measured_row.hpp"

namespace {

using namespace trainsim::kernels;

struct Options {
  bool quick = false;
  bool list = false;
  int device = 0;
  std::vector<std::string> dtypes;  ///< empty: the grid's
  std::string out;                  ///< empty: stdout
  std::string layer;                ///< --layer spec, empty: kernel grid
};

struct UsageError : std::invalid_argument {
  using std::invalid_argument::invalid_argument;
};

const char* k_usage =
    "usage: trainsim-calibrate [--quick] [--device N] [--dtypes bf16,fp16,fp8,tf32,fp32] [--out FILE]\n"
    "       trainsim-calibrate --layer h=4096,heads=32,kv_heads=8,ffn=14336,seq=4096,mb=1 [--out FILE]\n"
    "       trainsim-calibrate --list [--quick]\n";

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> parts;
  std::istringstream in(s);
  std::string item;
  while (std::getline(in, item, ',')) {
    if (!item.empty()) parts.push_back(item);
  }
  return parts;
}

Options parse_options(int argc, char** argv) {
  Options o;
  for (int i = 1; i < argc; ++i) {
    const std::string arg = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(arg + " needs a value");
      return argv[++i];
    };
    if (arg == "--quick")
      o.quick = true;
    else if (arg == "--list")
      o.list = true;
    else if (arg == "--device")
      o.device = std::stoi(value());
    else if (arg == "--dtypes")
      o.dtypes = split(value());
    else if (arg == "--out")
      o.out = value();
    else if (arg == "--layer")
      o.layer = value();
    else if (arg == "--help" || arg == "-h")
      throw UsageError("");
    else
      throw UsageError("unknown argument '" + arg + "'");
  }
  for (const std::string& d : o.dtypes) {
    if (d != "bf16" && d != "fp16" && d != "fp8" && d != "tf32" && d != "fp32") {
      throw UsageError("--dtypes: unknown dtype '" + d + "'");
    }
  }
  if (!o.layer.empty()) parse_layer_shape(o.layer);  // validate before touching the GPU
  return o;
}

bool wanted(const Options& o, const std::string& dtype) {
  if (o.dtypes.empty()) return true;
  for (const std::string& d : o.dtypes) {
    if (d == dtype) return true;
  }
  return false;
}

// Runs one section; a CUDA or cuBLASLt failure skips it and is recorded in the header.
void section(const std::string& name, const std::function<std::vector<MeasuredRow>()>& body,
             std::vector<MeasuredRow>& rows, std::vector<std::string>& notes) {
  const auto start = std::chrono::steady_clock::now();
  std::cerr << "trainsim-calibrate: " << name << " ..." << std::flush;
  try {
    const std::vector<MeasuredRow> measured = body();
    rows.insert(rows.end(), measured.begin(), measured.end());
    const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::cerr << " " << measured.size() << " rows, " << static_cast<int>(s + 0.5) << " s\n";
  } catch (const std::exception& e) {
    std::cerr << " skipped: " << e.what() << "\n";
    notes.push_back("# skipped: " + name + " (" + e.what() + ")");
    cudaGetLastError();  // clear a sticky launch error so the next section can run
  }
}

int list_grid(const Options& o) {
  const CalibrationGrid grid = o.quick ? quick_grid() : full_grid();
  std::cout << (o.quick ? "quick" : "full") << " grid: " << row_count(grid, true) << " rows with fp8, "
            << row_count(grid, false) << " without\n";
  const auto print = [](const char* what, const std::vector<double>& v) {
    std::cout << "  " << what << ":";
    for (double x : v) std::cout << " " << static_cast<long long>(x);
    std::cout << "\n";
  };
  std::cout << "  gemm dtypes:";
  for (const auto& d : grid.gemm_dtypes) std::cout << " " << d;
  std::cout << "\n";
  print("gemm m = n = k", grid.gemm_axis);
  std::cout << "  batched dtypes:";
  for (const auto& d : grid.batched_dtypes) std::cout << " " << d;
  std::cout << "\n";
  print("batched m", grid.batched_m);
  print("batched n = k", grid.batched_nk);
  print("batched batch", grid.batched_batch);
  print("attention seq (head_dim 128, 32 batch x heads)", grid.attention_seq);
  print("norm/softmax/gelu/swiglu/add rows (8192 columns)", grid.row_rows);
  print("adam parameters", grid.adam_params);
  print("copy_d2d bytes", grid.copy_bytes);
  print("memcpy_h2d / memcpy_d2h bytes", grid.host_copy_bytes);
  return 0;
}

int run(const Options& o) {
  const DeviceInfo info = query_device(o.device);  // throws "no CUDA-capable device" on a bare box
  check_cuda(cudaSetDevice(o.device), "cudaSetDevice");
  const BenchContext ctx(TimingPolicy{});
  std::vector<MeasuredRow> rows;
  std::vector<std::string> notes;
  std::string header = header_lines(info, utc_timestamp());
  header += "# source: measured\n";
  header += "# tool: trainsim-calibrate " +
            std::string(o.layer.empty() ? (o.quick ? "--quick" : "(full grid)") : "--layer " + o.layer) + "\n";
  header += "# timing: CUDA events; 2 warm-up calls, then >= 3 calls and >= 20 ms per shape, averaged\n";
  header +=
      "# attention: unfused (cuBLASLt batched GEMMs + trainsim causal softmax), FLOPs and bytes counted as "
      "for a fused causal kernel\n";

  if (!o.layer.empty()) {
    const LayerShape shape = parse_layer_shape(o.layer);
    header += "# layer: " + layer_spec(shape) + "\n";
    section(
        "layer " + o.layer, [&] { return bench_layer(ctx, shape); }, rows, notes);
  } else {
    const CalibrationGrid grid = o.quick ? quick_grid() : full_grid();
    for (const std::string& dtype : grid.gemm_dtypes) {
      if (!wanted(o, dtype)) continue;
      if (dtype == "fp8" && !has_fp8_tensor_cores(info)) {
        notes.push_back("# skipped: gemm fp8 (no fp8 tensor cores on compute capability " +
                        std::to_string(info.compute_major) + "." + std::to_string(info.compute_minor) + ")");
        continue;
      }
      section(
          "gemm " + dtype, [&] { return bench_gemm(ctx, grid, dtype); }, rows, notes);
    }
    for (const std::string& dtype : grid.batched_dtypes) {
      if (!wanted(o, dtype) || (dtype == "fp8" && !has_fp8_tensor_cores(info))) continue;
      section(
          "batched_gemm " + dtype, [&] { return bench_batched_gemm(ctx, grid, dtype); }, rows, notes);
    }
    section(
        "attention", [&] { return bench_attention(ctx, grid); }, rows, notes);
    section(
        "memory-bound kernels", [&] { return bench_memory_kernels(ctx, grid); }, rows, notes);
    section(
        "copies", [&] { return bench_copies(ctx, grid); }, rows, notes);
  }

  std::ostringstream table;
  table << header;
  for (const std::string& n : notes) table << n << "\n";
  table << csv_columns() << "\n";
  for (const MeasuredRow& r : rows) table << csv_line(r) << "\n";
  if (o.out.empty()) {
    std::cout << table.str();
  } else {
    // Written whole at the end, through a temporary file, so a killed run leaves no half table.
    const std::string tmp = o.out + ".tmp";
    {
      std::ofstream file(tmp);
      file << table.str();
      if (!file) throw std::runtime_error("cannot write " + tmp);
    }
    if (std::rename(tmp.c_str(), o.out.c_str()) != 0) throw std::runtime_error("cannot rename " + tmp);
    std::cerr << "trainsim-calibrate: wrote " << rows.size() << " rows to " << o.out << "\n";
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  Options options;
  try {
    options = parse_options(argc, argv);
  } catch (const UsageError& e) {
    if (*e.what() != '\0') std::cerr << "trainsim-calibrate: " << e.what() << "\n";
    std::cerr << k_usage;
    return *e.what() != '\0' ? 2 : 0;
  } catch (const std::exception& e) {
    std::cerr << "trainsim-calibrate: " << e.what() << "\n" << k_usage;
    return 2;
  }
  try {
    return options.list ? list_grid(options) : run(options);
  } catch (const std::exception& e) {
    std::cerr << "trainsim-calibrate: " << e.what() << "\n";
    return 1;
  }
}
