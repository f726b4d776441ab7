#include "controllers/nodepool/controllers.h"

namespace nodewright::controllers::nodepool {

using api::karpenter::NodeClaim;
using api::karpenter::NodePool;

Controllers::Controllers(runtime::Manager& manager, Options options)
    : hash_(manager.client(), manager.informerFor<NodePool>().cache(),
            std::move(options.hashPolicy)),
      counter_(manager.client(), manager.informerFor<NodePool>().cache(),
               manager.informerFor<NodeClaim>().cache()),
      validation_(manager.client(), manager.informerFor<NodePool>().cache()) {}

std::unique_ptr<Controllers> setup(runtime::Manager& manager, Options options) {
  auto controllers = std::make_unique<Controllers>(manager, std::move(options));
  controllers->hash().setup(manager);
  controllers->counter().setup(manager);
  controllers->validation().setup(manager);
  return controllers;
}

}  // namespace nodewright::controllers::nodepool
