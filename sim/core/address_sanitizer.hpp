#pragma once
// Whether this build runs under AddressSanitizer (the `asan` preset, the fuzzers): GCC
// defines __SANITIZE_ADDRESS__, clang has __has_feature.

namespace trainsim {

#if defined(__SANITIZE_ADDRESS__)
inline constexpr bool k_address_sanitizer = true;
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
inline constexpr bool k_address_sanitizer = true;
#else
inline constexpr bool k_address_sanitizer = false;
#endif
#else
inline constexpr bool k_address_sanitizer = false;
#endif

}  // namespace trainsim
