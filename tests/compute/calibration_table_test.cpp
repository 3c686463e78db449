#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "sim/compute/calibration_table.hpp"
#include "sim/core/error.hpp"

namespace trainsim {
namespace {

const char* k_header =
    "# gpu: NVIDIA H200\n"
    "# source: measured\n"
    "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n";

CalibrationTable parse(const std::string& text) {
  std::istringstream in(text);
  return parse_calibration_table(in, "test.csv");
}

// Parses `text` expecting an InputError; returns it for inspection.
InputError parse_error(const std::string& text) {
  try {
    parse(text);
  } catch (const InputError& e) {
    return e;
  }
  ADD_FAILURE() << "no InputError for:\n" << text;
  return InputError("", "", "", "");
}

TEST(CalibrationTable, ParsesHeaderAndRows) {
  const CalibrationTable t = parse(std::string(k_header) +
                                   "gemm,bf16,4096,4096,4096,1,2e-4,1.37e11,1e8,687,500\n"
                                   "\n"
                                   "adam,fp32,1048576,1,0,1,1e-5,0,31457280,0,3145\n");
  EXPECT_EQ(t.header.at("gpu"), "NVIDIA H200");
  EXPECT_TRUE(t.measured());
  ASSERT_EQ(t.rows.size(), 2U);
  EXPECT_EQ(t.rows[0].kernel, "gemm");
  EXPECT_EQ(t.rows[0].dtype, "bf16");
  EXPECT_EQ(t.rows[0].m, 4096);
  EXPECT_EQ(t.rows[0].time_s, 2e-4);
  EXPECT_EQ(t.rows[0].line, 4);
  EXPECT_EQ(t.rows[1].line, 6);
}

TEST(CalibrationTable, DerivedSourceIsNotMeasured) {
  const CalibrationTable t = parse(
      "# gpu: h200 (derived)\n# source: derived from public.md D3\n"
      "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n"
      "gemm,bf16,1,1,1,1,1e-6,2,6,0,0\n");
  EXPECT_FALSE(t.measured());
}

TEST(CalibrationTable, RejectsANonNumberNamingLineAndColumn) {
  const InputError e = parse_error(std::string(k_header) + "gemm,bf16,4096,4O96,4096,1,2e-4,1,1,1,1\n");
  EXPECT_EQ(e.file(), "test.csv");
  EXPECT_EQ(e.key(), "line 4, column 4 (n)");
  EXPECT_EQ(e.value(), "4O96");
  EXPECT_NE(std::string(e.what()).find("decimal number"), std::string::npos);
}

TEST(CalibrationTable, RejectsAWrongFieldCount) {
  const InputError e = parse_error(std::string(k_header) + "gemm,bf16,4096,4096,4096,1,2e-4\n");
  EXPECT_EQ(e.key(), "line 4");
  EXPECT_NE(e.rule().find("11 comma-separated fields"), std::string::npos);
}

TEST(CalibrationTable, RejectsAZeroTime) {
  const InputError e = parse_error(std::string(k_header) + "gemm,bf16,1,1,1,1,0,1,1,1,1\n");
  EXPECT_EQ(e.key(), "line 4, column 7 (time_s)");
}

TEST(CalibrationTable, RejectsANegativeField) {
  const InputError e = parse_error(std::string(k_header) + "gemm,bf16,1,1,1,1,1e-6,-5,1,1,1\n");
  EXPECT_EQ(e.key(), "line 4, column 8 (flops)");
  EXPECT_EQ(e.value(), "-5");
}

TEST(CalibrationTable, RejectsANonFiniteNumber) {
  const InputError e = parse_error(std::string(k_header) + "gemm,bf16,1,1,1,1,inf,1,1,1,1\n");
  EXPECT_EQ(e.key(), "line 4, column 7 (time_s)");
}

TEST(CalibrationTable, RejectsAnEmptyKernel) {
  const InputError e = parse_error(std::string(k_header) + ",bf16,1,1,1,1,1e-6,1,1,1,1\n");
  EXPECT_EQ(e.key(), "line 4, column 1 (kernel)");
}

TEST(CalibrationTable, RejectsAWrongColumnLine) {
  const InputError e = parse_error("# gpu: x\n# source: measured\nkernel,dtype,m,n,k,time_s\n");
  EXPECT_EQ(e.key(), "line 3");
}

TEST(CalibrationTable, RejectsAMissingSource) {
  const InputError e =
      parse_error("# gpu: x\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\ngemm,bf16,1,1,1,1,1,1,1,1,1\n");
  EXPECT_EQ(e.key(), "header source");
}

TEST(CalibrationTable, RejectsAnUnknownSource) {
  const InputError e = parse_error(
      "# gpu: x\n# source: guessed\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n"
      "gemm,bf16,1,1,1,1,1,1,1,1,1\n");
  EXPECT_EQ(e.value(), "guessed");
}

TEST(CalibrationTable, RejectsAMissingGpu) {
  const InputError e = parse_error(
      "# source: measured\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\ngemm,bf16,1,1,1,1,1,1,1,1,1\n");
  EXPECT_NE(e.rule().find("gpu"), std::string::npos);
}

TEST(CalibrationTable, RejectsAMalformedHeaderLine) {
  const InputError e = parse_error("# gpu NVIDIA\n");
  EXPECT_EQ(e.key(), "line 1");
}

TEST(CalibrationTable, RejectsATableWithoutRows) {
  const InputError e = parse_error(k_header);
  EXPECT_NE(e.rule().find("no rows"), std::string::npos);
}

TEST(CalibrationTable, RejectsAMissingFile) {
  EXPECT_THROW(read_calibration_table("/nonexistent/table.csv"), InputError);
}

const char* k_origin_header =
    "# gpu: NVIDIA H100 80GB HBM3 (converted)\n"
    "# source: converted from public measurements (openxla/xla)\n"
    "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin\n";

TEST(CalibrationTable, AcceptsTheOriginColumn) {
  const CalibrationTable t = parse(std::string(k_origin_header) +
                                   "gemm,bf16,256,256,256,1,4.992e-06,33554432,393216,6.7,78.8,measured:xla\n"
                                   "gemm,fp8,256,256,256,1,3e-06,33554432,262144,11,87,derived:mamf-fp8-ratio\n"
                                   "rope,fp16,128,4608,0,1,3e-06,0,2359296,0,786,measured:vidur\n");
  EXPECT_TRUE(t.has_origin);
  EXPECT_FALSE(t.measured());
  EXPECT_EQ(t.source_kind(), CalibrationSource::converted);
  ASSERT_EQ(t.rows.size(), 3U);
  EXPECT_EQ(t.rows[0].origin, "measured:xla");
  EXPECT_EQ(t.rows[1].origin, "derived:mamf-fp8-ratio");
  EXPECT_EQ(t.measured_rows(), 2U);
}

TEST(CalibrationTable, WithoutOriginTheSourceSaysWhichRowsAreMeasured) {
  const CalibrationTable measured = parse(std::string(k_header) + "gemm,bf16,1,1,1,1,1e-6,2,6,0,0\n");
  EXPECT_FALSE(measured.has_origin);
  EXPECT_EQ(measured.measured_rows(), 1U);
  EXPECT_EQ(measured.rows[0].origin, "");
  const CalibrationTable derived = parse(
      "# gpu: x\n# source: derived from public.md D3\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps\n"
      "gemm,bf16,1,1,1,1,1e-6,2,6,0,0\n");
  EXPECT_EQ(derived.source_kind(), CalibrationSource::derived);
  EXPECT_EQ(derived.measured_rows(), 0U);
}

TEST(CalibrationTable, AMeasuredTableMayMarkItsRowsToo) {
  const CalibrationTable t = parse(
      "# gpu: x\n# source: measured\nkernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin\n"
      "gemm,bf16,1,1,1,1,1e-6,2,6,0,0,measured:trainsim-calibrate\n"
      "gemm,bf16,2,1,1,1,1e-6,4,8,0,0,derived:filled_in.v2+x\n");
  EXPECT_TRUE(t.measured());
  EXPECT_EQ(t.measured_rows(), 1U);
}

TEST(CalibrationTable, RejectsAnOriginThatIsNeitherMeasuredNorDerived) {
  for (const char* origin :
       {"guessed:xla", "measured", "measured:", "derived:", "Measured:xla", "measured:x y", "derived:a;b", ":xla"}) {
    const InputError e = parse_error(std::string(k_origin_header) + "gemm,bf16,1,1,1,1,1e-6,2,6,0,0," + origin + "\n");
    EXPECT_EQ(e.file(), "test.csv") << origin;
    EXPECT_EQ(e.key(), "line 4, column 12 (origin)") << origin;
    EXPECT_EQ(e.value(), origin);
    EXPECT_NE(e.rule().find("measured:<source>"), std::string::npos) << origin;
  }
}

TEST(CalibrationTable, RejectsAnEmptyOrigin) {
  const InputError e = parse_error(std::string(k_origin_header) + "gemm,bf16,1,1,1,1,1e-6,2,6,0,0,\n");
  EXPECT_EQ(e.key(), "line 4, column 12 (origin)");
}

TEST(CalibrationTable, RejectsARowWithoutOriginInATableWithTheColumn) {
  const InputError e = parse_error(std::string(k_origin_header) + "gemm,bf16,1,1,1,1,1e-6,2,6,0,0\n");
  EXPECT_EQ(e.key(), "line 4");
  EXPECT_NE(e.rule().find("12 comma-separated fields"), std::string::npos);
}

TEST(CalibrationTable, RejectsAnOriginInATableWithoutTheColumn) {
  const InputError e = parse_error(std::string(k_header) + "gemm,bf16,1,1,1,1,1e-6,2,6,0,0,measured:xla\n");
  EXPECT_EQ(e.key(), "line 4");
  EXPECT_NE(e.rule().find("11 comma-separated fields"), std::string::npos);
}

TEST(CalibrationTable, RejectsAnUnknownThirteenthColumn) {
  const InputError e = parse_error(
      "# gpu: x\n# source: measured\n"
      "kernel,dtype,m,n,k,batch,time_s,flops,bytes,tflops,gbps,origin,note\n");
  EXPECT_EQ(e.key(), "line 3");
  EXPECT_NE(e.rule().find(",origin"), std::string::npos);
}

TEST(CalibrationTable, ShippedTablesParseAndSayWhereTheyComeFrom) {
  for (const char* gpu : {"a100-80g", "h100-sxm", "h200", "b200"}) {
    const CalibrationTable t =
        read_calibration_table(std::string(TRAINSIM_SOURCE_DIR) + "/kernels/calibration/" + gpu + ".csv");
    if (!t.measured()) {
      // Converted by kernels/calibration/convert_public.py: every row says where it is from,
      // and the header cites every source with its commit.
      EXPECT_EQ(t.source_kind(), CalibrationSource::converted) << gpu;
      EXPECT_EQ(t.source().rfind("converted from public measurements", 0), 0U) << gpu;
      EXPECT_EQ(t.header.at("trainsim_gpu"), gpu);
      EXPECT_TRUE(t.has_origin) << gpu;
      EXPECT_GT(t.measured_rows(), 0U) << gpu;
      bool cites = false;
      for (const auto& [key, value] : t.header) {
        if (key.rfind("ref ", 0) == 0) {
          cites = true;
          // a repository file at its commit, or figures read from a pull request's description
          EXPECT_TRUE(value.find(" @") != std::string::npos || value.find(" pull request #") != std::string::npos)
              << key;
        }
      }
      EXPECT_TRUE(cites) << gpu;
    }
    EXPECT_LT(t.rows.size(), 4000U) << gpu;  // B200: every GEMM shape in bf16, fp8, mxfp8 and nvfp4
  }
}

}  // namespace
}  // namespace trainsim
