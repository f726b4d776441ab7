#include "api/registry.h"

namespace nodewright::api {

void registerSeedEraKinds(Registry& registry) {
  (void)registry;
}

}  // namespace nodewright::api
