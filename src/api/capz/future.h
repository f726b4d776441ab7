#pragma once

#include <string>
#include <vector>

#include "api/reflect/schema.h"

// An Azure long-running operation parked in an object's status so that the next reconcile
// (possibly in another process, after a restart) can resume polling it instead of blocking
// (seed 004). A Future is identified by its service, resource group and resource name, and by
// the kind of request it came from. (CAPZ itself matches futures by service and name only; the
// group is part of the key here so that same-named resources in two groups never share one.)
namespace nodewright::api::capz {

struct Future {
  std::string type;  // the request verb: PUT, PATCH or DELETE (see conditions.h)
  std::string resourceGroup;
  std::string serviceName;
  std::string name;
  std::string data;  // opaque resume token of the poller
};
const reflect::StructSchema& describe(reflect::Tag<Future>);

using Futures = std::vector<Future>;

// Declares a status's longRunningOperationStates field: a list map keyed by (serviceName,
// resourceGroup, name, type), so the same operation cannot be recorded twice.
template <class Status>
reflect::StructBuilder<Status>& futuresField(reflect::StructBuilder<Status>& b) {
  return b
      .template field<&Status::longRunningOperationStates>(
          "longRunningOperationStates",
          "Azure long-running operations in flight, resumed on the next reconcile.")
      .mapList({"serviceName", "resourceGroup", "name", "type"});
}

}  // namespace nodewright::api::capz
