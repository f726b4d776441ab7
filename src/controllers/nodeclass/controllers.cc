#include "controllers/nodeclass/controllers.h"

namespace nodewright::controllers::nodeclass {

Controllers::Controllers(runtime::Manager& manager, Options options)
    : hash_(manager.client(), manager.informerFor<api::karpenter::EC2NodeClass>().cache(),
            std::move(options.hashPolicy)) {}

std::unique_ptr<Controllers> setup(runtime::Manager& manager, Options options) {
  auto controllers = std::make_unique<Controllers>(manager, std::move(options));
  controllers->hash().setup(manager);
  return controllers;
}

}  // namespace nodewright::controllers::nodeclass
