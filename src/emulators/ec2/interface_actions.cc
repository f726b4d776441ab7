// DetachNetworkInterface: an interface taken off a running instance out of band. The emulator
// keeps interfaces inside their instance, so a detached one leaves the instance's
// DescribeInstances answer; its addresses stay leased until the instance terminates (on EC2 a
// detached interface keeps them until it is deleted).
#include <fmt/format.h>

#include <algorithm>

#include "aws/xml.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

// The live instance holding the attachment, and the interface as it was found.
struct Attached {
  std::string instanceId;
  InstanceInterface ni;
};

std::optional<Attached> findAttachment(ResourceStore& store, std::string_view attachmentId) {
  for (const Resource& r : store.list(kind::kInstance)) {
    const auto* a = r.as<InstanceAttributes>();
    if (a == nullptr || r.state == instance_state::kTerminated ||
        r.state == instance_state::kShuttingDown) {
      continue;
    }
    for (const InstanceInterface& ni : a->interfaces) {
      if (attachmentIdOf(ni) == attachmentId) {
        return Attached{r.id, ni};
      }
    }
  }
  return std::nullopt;
}

// GUESS: EC2's code for an unknown attachment; the wording follows its other NotFound errors.
tl::unexpected<aws::ApiError> notFound(const std::string& attachmentId) {
  return aws::apiFail("InvalidAttachmentID.NotFound",
                      fmt::format("The attachment ID '{}' does not exist", attachmentId));
}

aws::ApiResult<std::string> detachNetworkInterface(ActionContext& ctx) {
  auto attachmentId = ctx.params.str("AttachmentId");
  if (!attachmentId) {
    return failWith(attachmentId);
  }
  if (auto force = ctx.params.optBoolean("Force"); !force) {
    return failWith(force);
  }
  ResourceStore& store = ctx.engine.store();
  const std::optional<Attached> found = findAttachment(store, *attachmentId);
  if (!found) {
    return notFound(*attachmentId);
  }
  const InstanceInterface& ni = found->ni;
  if (ni.deviceIndex == 0 && ni.networkCardIndex == 0) {
    // EC2 never detaches the primary interface. GUESS: the exact wording.
    return aws::apiFail("OperationNotPermitted",
                        "The network interface at device index 0 and networkCard index 0 cannot "
                        "be detached.");
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return failWith(dry);
  }
  auto updated = store.update(kind::kInstance, found->instanceId, [&](Resource& r) {
    const auto* a = r.as<InstanceAttributes>();
    if (a == nullptr) {
      return;
    }
    auto next = std::make_shared<InstanceAttributes>(*a);
    std::erase_if(next->interfaces, [&](const InstanceInterface& candidate) {
      return attachmentIdOf(candidate) == *attachmentId;
    });
    r.attributes = std::move(next);
  });
  if (!updated) {
    return notFound(*attachmentId);
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  aws::xml::addText(response.root(), "return", "true");
  return response.str();
}

}  // namespace

void addInterfaceActions(ActionTable& table) {
  table["DetachNetworkInterface"] = {bucket::kMutating, detachNetworkInterface};
}

}  // namespace nodewright::emulators::ec2
