#pragma once

#include <algorithm>
#include <string>
#include <string_view>

#include "api/meta.h"
#include "kube/client.h"

// Finalizer bookkeeping shared by every controller (CAPI core and CAPZ).
namespace nodewright::runtime {

inline bool hasFinalizer(const api::ObjectMeta& meta, std::string_view finalizer) {
  return std::find(meta.finalizers.begin(), meta.finalizers.end(), finalizer) !=
         meta.finalizers.end();
}

// Adds `finalizer` unless present, writing through metadata.resourceVersion: a stale copy
// conflicts instead of overwriting a newer object. `object` becomes the stored object.
template <class T>
kube::ApiStatus addFinalizer(kube::Typed<T>& typed, T& object, const std::string& finalizer) {
  if (hasFinalizer(object.metadata, finalizer)) {
    return {};
  }
  T changed = object;
  changed.metadata.finalizers.push_back(finalizer);
  auto written = typed.update(changed);
  if (!written) {
    return tl::unexpected(written.error());
  }
  object = std::move(*written);
  return {};
}

// Removes `finalizer` through metadata.resourceVersion; the object may be gone once this
// returns (NotFound is success).
template <class T>
kube::ApiStatus removeFinalizer(kube::Typed<T>& typed, const T& object,
                                const std::string& finalizer) {
  if (!hasFinalizer(object.metadata, finalizer)) {
    return {};
  }
  T changed = object;
  std::erase(changed.metadata.finalizers, finalizer);
  auto written = typed.update(changed);
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return tl::unexpected(written.error());
  }
  return {};
}

// Adds (`present`) or removes `finalizer` on the stored object named like `object`, re-reading
// on conflict (kube::updateWithRetry): for callers whose copy may be older than the stored
// one (their own status writes moved the resourceVersion). Removing from a gone object is
// success.
template <class T>
kube::ApiStatus setFinalizerWithRetry(kube::Client& client, const T& object,
                                      const std::string& finalizer, bool present) {
  auto written =
      kube::updateWithRetry(client, kube::kindOf<T>(client.registry()), object.metadata.namespace_,
                            object.metadata.name, [&](api::Object& stored) {
                              auto& finalizers = stored.as<T>()->metadata.finalizers;
                              auto it = std::find(finalizers.begin(), finalizers.end(), finalizer);
                              if (present == (it != finalizers.end())) {
                                return false;
                              }
                              if (present) {
                                finalizers.push_back(finalizer);
                              } else {
                                finalizers.erase(it);
                              }
                              return true;
                            });
  if (!written && !(!present && written.error().is(kube::Reason::NotFound))) {
    return tl::unexpected(written.error());
  }
  return {};
}

}  // namespace nodewright::runtime
