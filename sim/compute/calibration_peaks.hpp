#pragma once
// A calibration table's rows against the datasheet peaks of the GPU it is loaded for: no kernel
// runs faster than its GPU's tensor cores or HBM allow, so a row that does is a wrong time (a
// unit slip, a timer that missed the kernel, a table for another GPU) and would print an MFU
// above 100 %.

#include "sim/compute/calibration_table.hpp"
#include "topologies/gpu_spec.hpp"

namespace trainsim {

/// How far a row's HBM byte rate may pass the datasheet bandwidth (calibration_peaks.cpp says
/// why); its FLOP rate may not pass the compute peak at all.
inline constexpr double k_calibration_memory_tolerance = 1.25;

/// The dense peak, FLOP/s, that bounds a row of `dtype` on `gpu`: bf16 and fp16 the bf16
/// peak, fp8, mxfp8, nvfp4 their own, tf32 and fp32 the TF32 one; a dtype without a peak of
/// its own on this GPU (u8 copies, fp8 on an A100) the GPU's highest.
double calibration_peak_flops(const GpuSpec& gpu, const std::string& dtype);

/// Throws InputError(table.file, "line L (kernel, dtype)", rate, rule) for the first row whose
/// flops / time_s passes calibration_peak_flops, or whose bytes / time_s passes the HBM
/// bandwidth times k_calibration_memory_tolerance, naming the rate and the peak.
void check_calibration_peaks(const CalibrationTable& table, const GpuSpec& gpu);

/// A GPU whose every peak is the highest of `gpus` (trainsim's GPU presets; its name "the
/// fastest GPU trainsim knows"): the bound for a table whose GPU is not one of them.
GpuSpec fastest_gpu_bounds(const std::vector<GpuSpec>& gpus);

}  // namespace trainsim
