#pragma once

#include <string>
#include <string_view>

#include "controllers/capi/bootstrap.h"
#include "controllers/capi/external.h"
#include "kube/client.h"
#include "runtime/api_outcome.h"
#include "runtime/finalizers.h"
#include "runtime/reconciler.h"

namespace nodewright::controllers::capi {

// The last steps of deleting a Machine or a MachinePool, in CAPI's order: its infrastructure
// object, then its bootstrap Secret, then its finalizer. Done while the provider still tears
// the infrastructure down: that object's removal wakes the owner (watches.h).
template <class T>
runtime::Outcome releaseOwner(kube::Client& client, kube::Typed<T>& typed, const T& owner,
                              const api::ObjectReference& infrastructure,
                              const std::string& finalizer, std::string_view kind,
                              runtime::Context& context) {
  const std::string what =
      std::string(kind) + " " + owner.metadata.namespace_ + "/" + owner.metadata.name;
  if (!infrastructure.name.empty()) {
    auto gone = deleteExternal(client, infrastructure, owner.metadata.namespace_);
    if (!gone) {
      return runtime::apiFailure(gone.error(), "deleting the infrastructure of " + what);
    }
    if (!*gone) {
      return runtime::Result::done();
    }
  }
  if (auto gone = deleteBootstrapSecret(client, owner.metadata); !gone) {
    return runtime::apiFailure(gone.error(), "deleting the bootstrap data of " + what);
  }
  if (!context.leading()) {
    return runtime::Result::done();
  }
  if (auto removed = runtime::removeFinalizer(typed, owner, finalizer); !removed) {
    return runtime::apiFailure(removed.error(), "removing the finalizer of " + what);
  }
  return runtime::Result::done();
}

}  // namespace nodewright::controllers::capi
