#pragma once

#include "runtime/metrics.h"

// karpenter_build_info{version,goversion,goarch,commit} = 1, as Karpenter's operator registers
// it. This is not a Go program: goversion carries the C++ compiler that built it and goarch the
// target architecture in Go's spelling (amd64, arm64), so queries that join on it still work.
namespace nodewright::cmd {

void registerBuildInfo(runtime::Registry& registry);

}  // namespace nodewright::cmd
