#include "lro/futures.h"

#include <algorithm>
#include <utility>

namespace nodewright::lro {
namespace {

bool sameKey(const Future& f, std::string_view name, std::string_view service,
             std::string_view type) {
  return f.name == name && f.serviceName == service && f.type == type;
}

}  // namespace

const Future* findFuture(const Futures& futures, const ResourceRef& resource, Verb verb) {
  std::string_view type = verbName(verb);
  for (const Future& f : futures) {
    if (sameKey(f, resource.name, resource.serviceName, type)) {
      return &f;
    }
  }
  return nullptr;
}

void setFuture(Futures& futures, Future future) {
  for (Future& f : futures) {
    if (sameKey(f, future.name, future.serviceName, future.type)) {
      f = std::move(future);
      return;
    }
  }
  futures.push_back(std::move(future));
}

bool removeFuture(Futures& futures, const ResourceRef& resource, Verb verb) {
  std::string_view type = verbName(verb);
  auto gone = std::remove_if(futures.begin(), futures.end(), [&](const Future& f) {
    return sameKey(f, resource.name, resource.serviceName, type);
  });
  bool removed = gone != futures.end();
  futures.erase(gone, futures.end());
  return removed;
}

Future makeFuture(const ResourceRef& resource, Verb verb, std::string token) {
  Future f;
  f.type = verbName(verb);
  f.resourceGroup = resource.resourceGroup;
  f.serviceName = resource.serviceName;
  f.name = resource.name;
  f.data = std::move(token);
  return f;
}

}  // namespace nodewright::lro
