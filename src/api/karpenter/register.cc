#include "api/registry.h"

namespace nodewright::api {

void registerKarpenterKinds(Registry& registry) {
  (void)registry;
}

}  // namespace nodewright::api
