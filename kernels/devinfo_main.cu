// trainsim-devinfo: prints the calibration-table header for GPU 0 (or the one given).

#include <ctime>
#include <exception>
#include <iostream>
#include <string>

#include "device_info.hpp"

int main(int argc, char** argv) {
  try {
    const int device = argc > 1 ? std::stoi(argv[1]) : 0;
    const std::time_t now = std::time(nullptr);
    char date[32];
    std::strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
    std::cout << trainsim::kernels::header_lines(trainsim::kernels::query_device(device), date);
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "trainsim-devinfo: " << e.what() << "\n";
    return 1;
  }
}
