#include "api/registry.h"

namespace nodewright::api {

void registerClusterApiKinds(Registry& registry) {
  (void)registry;
}

}  // namespace nodewright::api
