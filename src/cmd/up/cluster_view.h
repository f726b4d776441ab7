#pragma once

#include <chrono>
#include <filesystem>
#include <functional>
#include <stop_token>
#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "core/error.h"
#include "kube/client.h"

// What the demo needs from the cluster, read through the API as kubectl would: manifests
// applied with server-side apply, objects listed as JSON, and waits for a condition.
namespace nodewright::cmd::up {

// Applies every document of `file` (server-side apply, field manager "nodewright-demo") and
// returns "Kind/name" of each, in order.
core::Result<std::vector<std::string>> applyFile(kube::Client& client,
                                                 const std::filesystem::path& file);

// Every object of the kind named `resource` ("nodeclaims", "azuremachines.infrastructure...")
// in namespace `ns` ("" for all), as JSON; empty when the list fails (the next poll retries).
std::vector<api::Json> listJson(kube::Client& client, std::string_view resource,
                                const std::string& ns = "", const std::string& labelSelector = "");

// Whether `object` has the status condition `type` with status "True".
bool conditionTrue(const api::Json& object, std::string_view type);
// The message of condition `type`, or "".
std::string conditionMessage(const api::Json& object, std::string_view type);

// Polls `done` every 250 ms until it returns true (ok), `timeout` passes (Timeout naming
// `what`) or `stop` is requested (Cancelled).
core::Status awaitCondition(std::string_view what, std::chrono::milliseconds timeout,
                            std::stop_token stop, const std::function<bool()>& done);

}  // namespace nodewright::cmd::up
