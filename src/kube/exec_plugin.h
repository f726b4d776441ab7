#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "kube/config.h"

// client-go credential plugins (client.authentication.k8s.io): the pieces of runExecPlugin,
// exposed for tests.
namespace nodewright::kube {

// client-go waits for a plugin without limit; a hung plugin must not hang every request.
inline constexpr std::chrono::seconds kExecPluginTimeout{30};
// More output than any credential needs: a plugin that floods stdout is broken.
inline constexpr size_t kExecOutputLimit = 1 << 20;

// runExecPlugin with its deadline; on expiry the plugin's process group is killed.
core::Result<ExecCredential> runExecPlugin(const ExecConfig& exec, const RestConfig& cluster,
                                           std::chrono::milliseconds timeout);

// KUBERNETES_EXEC_INFO: the ExecCredential request the plugin reads from its environment.
std::string execInfo(const ExecConfig& exec, const RestConfig& cluster);

// The plugin's stdout as an ExecCredential of `apiVersion`. Messages never quote the output.
core::Result<ExecCredential> parseExecCredential(std::string_view output,
                                                 const std::string& apiVersion);

}  // namespace nodewright::kube
