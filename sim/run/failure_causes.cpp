#include "sim/run/failure_causes.hpp"

namespace trainsim {

namespace {

// Llama 3 405B pre-training, a 54-day snapshot on 16,384 H100: 419 unexpected interruptions
// by root cause (Dubey et al. 2024, "The Llama 3 Herd of Models", Table 5; read in Glenn
// Lockwood's transcription, glennklockwood.com/garden/component-reliability [secondary]).
// Counts, not the printed percentages (the table prints 30.1 % for 148 of 419). Components of
// the GPU and Host categories and host maintenance take the node out of the job for repair;
// software, network fabric and unknown causes restart the job on the same nodes (our
// reading: the paper does not say which interruptions swapped nodes).
const std::vector<FailureCause> k_llama3 = {
    {"Faulty GPU", "GPU", 148, true},
    {"GPU HBM3 Memory", "GPU", 72, true},
    {"Software Bug", "Dependency", 54, false},
    {"Network Switch/Cable", "Network", 35, false},
    {"Host Maintenance", "Unplanned Maintenance", 32, true},
    {"GPU SRAM Memory", "GPU", 19, true},
    {"GPU System Processor", "GPU", 17, true},
    {"NIC", "Host", 7, true},
    {"NCCL Watchdog Timeouts", "Unknown", 7, false},
    {"Silent Data Corruption", "GPU", 6, true},
    {"GPU Thermal Interface + Sensor", "GPU", 6, true},
    {"SSD", "Host", 3, true},
    {"Power Supply", "Host", 3, true},
    {"Server Chassis", "Host", 2, true},
    {"IO Expansion Board", "Host", 2, true},
    {"Dependency", "Dependency", 2, false},
    {"CPU", "Host", 2, true},
    {"System Memory", "Host", 2, true},
};

const std::vector<FailureCause> k_hardware = {{"Node hardware", "Hardware", 1, true}};

std::vector<double> weights(const std::vector<FailureCause>& causes) {
  std::vector<double> w;
  for (const FailureCause& c : causes) w.push_back(c.count);
  return w;
}

}  // namespace

const std::vector<FailureCause>& failure_causes(FailureCauses which) {
  return which == FailureCauses::llama3 ? k_llama3 : k_hardware;
}

CausePicker::CausePicker(FailureCauses which) : causes_(failure_causes(which)) {
  const std::vector<double> w = weights(causes_);
  draw_ = std::discrete_distribution<int>(w.begin(), w.end());
}

const FailureCause& CausePicker::pick(std::mt19937_64& rng) {
  return causes_[static_cast<std::size_t>(draw_(rng))];
}

}  // namespace trainsim
