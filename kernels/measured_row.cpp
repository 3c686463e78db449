#include "measured_row.hpp"

#include <cmath>
#include <cstdio>

namespace trainsim::kernels {

namespace {

std::string count(double x) {
  char buf[40];
  if (x == std::floor(x) && std::fabs(x) < 1e18) {
    std::snprintf(buf, sizeof buf, "%lld", static_cast<long long>(x));
  } else {
    std::snprintf(buf, sizeof buf, "%.6g", x);
  }
  return buf;
}

std::string real(double x) {
  char buf[40];
  std::snprintf(buf, sizeof buf, "%.6g", x);
  return buf;
}

}  // namespace

std::string csv_columns() {
  return "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps";
}

std::string csv_line(const MeasuredRow& r) {
  const double tflops = r.time_s > 0 ? r.flops / r.time_s / 1e12 : 0;
  const double gbps = r.time_s > 0 ? r.bytes / r.time_s / 1e9 : 0;
  return r.kernel + "," + r.dtype + "," + count(r.m) + "," + count(r.n) + "," + count(r.k) + "," + count(r.batch) +
         "," + real(r.time_s) + "," + count(r.flops) + "," + count(r.bytes) + "," + real(tflops) + "," + real(gbps);
}

}  // namespace trainsim::kernels
