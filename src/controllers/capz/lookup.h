#pragma once

#include <optional>
#include <string>

#include "kube/client.h"

namespace nodewright::controllers::capz {

// The object, or nullopt when it does not exist: the CAPZ controllers wait for owners and
// secrets that are not there yet rather than failing.
template <class T>
kube::ApiResult<std::optional<T>> findObject(kube::Client& client, const std::string& ns,
                                             const std::string& name) {
  auto got = kube::Typed<T>(client).get(ns, name);
  if (got) {
    return std::optional<T>(std::move(*got));
  }
  if (got.error().is(kube::Reason::NotFound)) {
    return std::optional<T>();
  }
  return tl::unexpected(got.error());
}

}  // namespace nodewright::controllers::capz
