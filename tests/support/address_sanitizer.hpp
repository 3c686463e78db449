#pragma once
// TRAINSIM_UNDER_ASAN is defined when this build runs under AddressSanitizer (GCC defines
// __SANITIZE_ADDRESS__, clang has __has_feature). ASan reserves terabytes of address space:
// the tests that run trainsim under `ulimit -v` skip there.

#if defined(__SANITIZE_ADDRESS__)
#define TRAINSIM_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define TRAINSIM_UNDER_ASAN 1
#endif
#endif
