#include "api/registry.h"

namespace nodewright::api {

void registerCoreKinds(Registry& registry) {
  (void)registry;
}

}  // namespace nodewright::api
