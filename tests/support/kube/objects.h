#pragma once

#include <chrono>
#include <functional>
#include <map>
#include <string>

#include "api/core/secret.h"

// Small things the client and runtime tests share.
namespace nodewright::kube::testing {

// A ConfigMap in namespace "default".
api::corev1::ConfigMap configMap(const std::string& name,
                                 std::map<std::string, std::string> data = {});

// Polls `condition` until it holds or `timeout` passes; returns its last value. For state that
// another thread (an informer, a worker) changes with nothing else to wait on.
bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds timeout = std::chrono::seconds(20));

}  // namespace nodewright::kube::testing
