#include "sim/core/simulation_heap.hpp"

#include <malloc.h>

namespace trainsim {

void prepare_simulation_heap() {
  mallopt(M_ARENA_MAX, 1);
  mallopt(M_TOP_PAD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_MMAP_MAX, 0);
}

}  // namespace trainsim
