#pragma once
// FNV-1a 64 (Fowler, Noll, Vo; the IETF draft-eastlake-fnv's 64-bit offset basis and prime):
// the same value for the same bytes on every build and machine, unlike std::hash. What sweep
// fingerprints hash (sweep_plan.hpp, engine_identity.hpp).

#include <cstdint>
#include <cstdio>
#include <string>
#include <string_view>

namespace trainsim::sweep {

class Fnv1a64 {
 public:
  void bytes(std::string_view s) {
    for (const unsigned char c : s) byte(c);
  }
  /// `s`, then a separator byte (0xff) no UTF-8 text holds, so that fields cannot be cut
  /// differently into the same bytes.
  void field(std::string_view s) {
    bytes(s);
    byte(0xff);
  }
  /// 16 hex digits.
  std::string hex() const {
    char buf[17];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h_));
    return buf;
  }

 private:
  void byte(unsigned char c) {
    h_ ^= c;
    h_ *= 1099511628211ull;
  }
  std::uint64_t h_ = 14695981039346656037ull;
};

}  // namespace trainsim::sweep
