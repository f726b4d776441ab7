#pragma once

// Whether this test binary is the optimised build. Time and memory bounds that are figures of
// the product (a 4xx within 1 s, RSS under 300 MiB) are asserted there; an unoptimised
// sanitizer build runs many times slower and ASan keeps 256 MiB of freed blocks in quarantine,
// so there the same flows only check behaviour and report their figures.
#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define NW_TEST_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__)
#define NW_TEST_SANITIZED 1
#endif

namespace nodewright::test_support {

#if defined(NDEBUG) && !defined(NW_TEST_SANITIZED)
inline constexpr bool kOptimisedBuild = true;
#else
inline constexpr bool kOptimisedBuild = false;
#endif

}  // namespace nodewright::test_support
