#pragma once

#include <chrono>
#include <functional>
#include <memory>

#include "core/clock.h"
#include "kube/config.h"

// makeCredentials with its clock and plugin runner injected, for tests.
namespace nodewright::kube {

// client-go re-reads a token file at most this often (service-account tokens rotate hourly).
inline constexpr std::chrono::minutes kTokenFileRefresh{1};
// An expiring plugin credential is replaced this long before it expires, so a request does
// not leave with a token that lapses on the way.
inline constexpr std::chrono::seconds kExecRefreshMargin{10};

using ExecRunner =
    std::function<core::Result<ExecCredential>(const ExecConfig& exec, const RestConfig& cluster)>;

// Thread-safe; concurrent callers share one plugin run. `clock` must outlive the result.
std::unique_ptr<Credentials> makeCredentials(const RestConfig& config, const core::Clock& clock,
                                             ExecRunner runExec);

}  // namespace nodewright::kube
