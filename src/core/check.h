#pragma once

#include <cstdio>
#include <cstdlib>

// NW_CHECK guards invariants that only a bug can break; it aborts with the location.
#define NW_CHECK(cond)                                                              \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      std::abort();                                                                 \
    }                                                                               \
  } while (false)
