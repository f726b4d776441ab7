#pragma once

#include "kube/client.h"
#include "kube/config.h"
#include "support/apiserver/test_server.h"

// Client configuration for the embedded API server of a test.
namespace nodewright::kube::testing {

RestConfig restConfigFor(const apiserver::testing::TestApiServer& server);
// For an API server in a child process: its data directory's kubeconfig.
RestConfig restConfigFromDataDir(const std::string& dataDir);
std::unique_ptr<Client> clientFor(const RestConfig& config);

}  // namespace nodewright::kube::testing
