// trainsim-devinfo: prints the calibration-table header for GPU 0 (or the one given).

#include <exception>
#include <iostream>
#include <string>

#include "device_info.hpp"

int main(int argc, char** argv) {
  try {
    const int device = argc > 1 ? std::stoi(argv[1]) : 0;
    std::cout << trainsim::kernels::header_lines(trainsim::kernels::query_device(device),
                                                 trainsim::kernels::utc_timestamp());
    return 0;
  } catch (const std::exception& e) {
    std::cerr << "trainsim-devinfo: " << e.what() << "\n";
    return 1;
  }
}
