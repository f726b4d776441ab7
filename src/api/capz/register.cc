#include "api/registry.h"

namespace nodewright::api {

void registerAzureKinds(Registry& registry) {
  (void)registry;
}

}  // namespace nodewright::api
