#pragma once

#include <memory>
#include <string>

#include "kube/client.h"
#include "runtime/metrics.h"

namespace nodewright::runtime {

// client-go's rest_client_requests_total{code,method,host} and
// rest_client_request_duration_seconds{verb,host}.
std::unique_ptr<kube::RequestObserver> clientMetrics(Registry& registry, std::string host);

}  // namespace nodewright::runtime
