#pragma once

#include <algorithm>
#include <string>

#include "kube/client.h"

// Finalizer bookkeeping on the core kinds. Both write through metadata.resourceVersion, so a
// stale copy conflicts instead of overwriting a newer object.
namespace nodewright::controllers::capi {

// Adds `finalizer` unless present; `object` becomes the stored object.
template <class T>
kube::ApiStatus addFinalizer(kube::Typed<T>& typed, T& object, const std::string& finalizer) {
  auto& finalizers = object.metadata.finalizers;
  if (std::find(finalizers.begin(), finalizers.end(), finalizer) != finalizers.end()) {
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

// Removes `finalizer`; the object may be gone once this returns.
template <class T>
kube::ApiStatus removeFinalizer(kube::Typed<T>& typed, const T& object,
                                const std::string& finalizer) {
  T changed = object;
  auto& finalizers = changed.metadata.finalizers;
  auto it = std::remove(finalizers.begin(), finalizers.end(), finalizer);
  if (it == finalizers.end()) {
    return {};
  }
  finalizers.erase(it, finalizers.end());
  auto written = typed.update(changed);
  if (!written && !written.error().is(kube::Reason::NotFound)) {
    return tl::unexpected(written.error());
  }
  return {};
}

}  // namespace nodewright::controllers::capi
