#include "sim/profile/profile_table_writer.hpp"

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <sstream>

namespace trainsim::profile {

namespace {

constexpr std::size_t k_header_unmapped = 10;
constexpr std::size_t k_header_name_width = 100;

// Shape fields, FLOPs and bytes: exact integers where they are (as convert_public.py and
// trainsim-calibrate write them).
std::string count(double x) {
  char buf[40];
  if (x == std::floor(x) && std::fabs(x) < 1e18)
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
  else
    std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string real(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

std::string percent(double part, double whole) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1f %%", whole > 0 ? 100.0 * part / whole : 0.0);
  return buf;
}

std::string us(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4g us", seconds * 1e6);
  return buf;
}

std::string ms(double seconds) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.2f ms", seconds * 1e3);
  return buf;
}

std::string csv_line(const ProfileRow& r) {
  const RowShape& s = r.op.shape;
  return s.kernel + "," + s.dtype + "," + count(static_cast<double>(s.m)) + "," + count(static_cast<double>(s.n)) +
         "," + count(static_cast<double>(s.k)) + "," + count(static_cast<double>(s.batch)) + "," + real(r.time_s) +
         "," + count(r.op.flops) + "," + count(r.op.bytes) + "," + real(r.op.flops / r.time_s / 1e12) + "," +
         real(r.op.bytes / r.time_s / 1e9);
}

// Text from the trace (its file name, op and kernel names) on one `#` line: a control
// character becomes a space, since a line end would end the comment and start a row the
// reader refuses.
std::string one_line(std::string text) {
  for (char& ch : text)
    if (static_cast<unsigned char>(ch) < 0x20 || ch == 0x7f) ch = ' ';
  return text;
}

std::string joined(const std::vector<std::string>& items) {
  std::string s;
  for (const std::string& i : items) s += (s.empty() ? "" : ", ") + i;
  return s;
}

std::string mapped_line(const ProfileCalibration& c) {
  const ProfileSummary& s = c.summary;
  return percent(s.mapped_time_s, s.gpu_time_s) + " of GPU time (" + std::to_string(s.mapped) + " of " +
         std::to_string(s.activities) + " kernels, copies and memsets; " + ms(s.mapped_time_s) + " of " +
         ms(s.gpu_time_s) + "); " + percent(s.mapped_time_s, s.gpu_time_s - s.communication_time_s) +
         " of the time outside NCCL communication kernels (" + percent(s.communication_time_s, s.gpu_time_s) +
         " of GPU time)";
}

std::string unmapped_line(const UnmappedKernel& u, const ProfileSummary& s, std::size_t width) {
  char head[64];
  std::snprintf(head, sizeof head, "%5.1f %% %6d x ", s.gpu_time_s > 0 ? 100.0 * u.time_s / s.gpu_time_s : 0.0,
                u.count);
  return one_line(head + short_kernel_name(u.name, width) + " (" + u.launched_by + ": " +
                  (u.communication ? "communication" : u.reason) + ")");
}

}  // namespace

std::string short_kernel_name(const std::string& name, std::size_t width) {
  std::string s = name.rfind("void ", 0) == 0 ? name.substr(5) : name;
  // The parameter list is the balanced (...) group that ends the name ("(anonymous
  // namespace)" inside it stays).
  if (!s.empty() && s.back() == ')') {
    int depth = 0;
    for (std::size_t i = s.size(); i-- > 0;) {
      if (s[i] == ')') ++depth;
      if (s[i] == '(' && --depth == 0) {
        if (i > 0) s.resize(i);
        break;
      }
    }
  }
  for (char& ch : s)
    if (ch == '\n' || ch == '\r') ch = ' ';
  if (s.size() > width) s = s.substr(0, width - 3) + "...";
  return s;
}

std::string profile_table_text(const ProfileCalibration& c, const TableProvenance& p) {
  std::ostringstream out;
  const std::string trace_name = one_line(std::filesystem::path(c.file).filename().string());
  out << "# gpu: " << c.gpu << "\n"
      << "# source: measured (PyTorch profiler trace " << trace_name << ")\n"
      << "# date_utc: " << p.date_utc << "\n"
      << "# tool: " << one_line(p.tool) << "\n"
      << "# timing: median over calls of the GPU time of the kernels each PyTorch op call launched (the trace's "
         "CUPTI timestamps); calls of one kernel, dtype and shape merged\n";
  if (c.integer_microseconds) out << "# time_resolution: 1 us (the trace's durations are whole microseconds)\n";
  out << "# dtype_rule: bf16, fp16, fp8 from the op's input type; fp32 GEMMs are tf32 when a kernel they launched "
         "runs on TF32 tensor cores (its name has tf32 or tensorop), else fp32\n"
      << "# rows: " << c.rows.size() << "\n"
      << "# gpu_time_mapped: " << mapped_line(c) << "\n";
  if (c.summary.launch_gaps.pairs > 0)
    out << "# launch_gap_median_s: " << c.summary.launch_gaps.median_s << " (" << c.summary.launch_gaps.pairs
        << " queued kernel pairs)\n";
  for (std::size_t i = 0; i < c.summary.unmapped.size() && i < k_header_unmapped; ++i)
    out << "# unmapped: " << unmapped_line(c.summary.unmapped[i], c.summary, k_header_name_width) << "\n";
  if (c.summary.unmapped.size() > k_header_unmapped) {
    double rest = 0;
    for (std::size_t i = k_header_unmapped; i < c.summary.unmapped.size(); ++i) rest += c.summary.unmapped[i].time_s;
    out << "# unmapped_more: " << c.summary.unmapped.size() - k_header_unmapped << " more kernel names, "
        << percent(rest, c.summary.gpu_time_s) << " of GPU time\n";
  }
  out << "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n";
  for (const ProfileRow& r : c.rows) {
    out << "# " << r.calls << (r.calls == 1 ? " call" : " calls") << " of " << one_line(joined(r.ops));
    if (r.calls > 1) out << ", " << us(r.min_s) << " .. " << us(r.max_s);
    out << "\n" << csv_line(r) << "\n";
  }
  return out.str();
}

std::string profile_summary_text(const ProfileCalibration& c, std::size_t max_unmapped) {
  std::ostringstream out;
  const ProfileSummary& s = c.summary;
  out << "trainsim calibrate: " << c.file << ": " << c.gpu << ", " << s.activities
      << " GPU kernels, copies and memsets, " << ms(s.gpu_time_s) << " of GPU time\n"
      << "mapped: " << c.rows.size() << " rows, " << mapped_line(c) << "\n";
  if (s.launch_gaps.pairs > 0)
    out << "launch gap between kernels queued back to back: median " << us(s.launch_gaps.median_s) << " over "
        << s.launch_gaps.pairs << " pairs (training.kernel_gap)\n";
  if (s.unmapped.empty()) return out.str();
  out << "not mapped, by kernel (share of GPU time, count, name, launched by: reason):\n";
  for (std::size_t i = 0; i < s.unmapped.size() && i < max_unmapped; ++i)
    out << "  " << unmapped_line(s.unmapped[i], s, 72) << "\n";
  if (s.unmapped.size() > max_unmapped) {
    double rest = 0;
    int count = 0;
    for (std::size_t i = max_unmapped; i < s.unmapped.size(); ++i) {
      rest += s.unmapped[i].time_s;
      count += s.unmapped[i].count;
    }
    out << "  " << percent(rest, s.gpu_time_s) << " in " << count << " more activities of "
        << s.unmapped.size() - max_unmapped << " other kernel names\n";
  }
  return out.str();
}

}  // namespace trainsim::profile
