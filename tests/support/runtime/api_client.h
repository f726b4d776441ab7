#pragma once

#include <memory>
#include <string>

#include "core/clock.h"
#include "kube/client.h"
#include "support/apiserver/test_server.h"

// A kube::Client for a TestApiServer, over its HTTPS port with its CA and token.
namespace nodewright::runtime::testing {

std::unique_ptr<kube::Client> apiClient(
    const apiserver::testing::TestApiServer& server,
    std::chrono::milliseconds timeout = std::chrono::seconds(5));

}  // namespace nodewright::runtime::testing
