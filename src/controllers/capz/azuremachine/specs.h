#pragma once

#include <optional>
#include <string>

#include "api/capz/network.h"
#include "api/reflect/json.h"
#include "lro/operation.h"

// The ResourceSpecs of an AzureMachine's services, where CAPZ's differ from "PUT until the body
// matches" (arm_resource.h's DesiredResource).
namespace nodewright::controllers::capz::azuremachine {

// PUT only while the resource does not exist, or exists with provisioningState Failed. CAPZ
// never updates a machine's public IP, NIC, availability set, VM, extension or role assignment
// ("already exists, nothing to update"): the cloud fills in fields (a VM drops customData) that
// would otherwise mean a PUT every pass. A resource whose operation ended Failed is sent again
// as it was, which is how ARM recovers it (the controller spaces those attempts).
class CreateOnlyResource final : public lro::ResourceSpec {
 public:
  CreateOnlyResource(lro::ResourceRef ref, api::Json body)
      : ref_(std::move(ref)), body_(std::move(body)) {}

  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const override;
  const api::Json& body() const { return body_; }

 private:
  lro::ResourceRef ref_;
  api::Json body_;
};

// A resource this service only deletes (CAPZ's disks: the VM creates them).
class DeleteOnlyResource final : public lro::ResourceSpec {
 public:
  explicit DeleteOnlyResource(lro::ResourceRef ref) : ref_(std::move(ref)) {}
  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json&) const override {
    return std::optional<api::Json>();
  }

 private:
  lro::ResourceRef ref_;
};

// A role assignment for the VM's system-assigned identity, whose principal is known only once
// the VM exists. Without it the spec fails (the service retries on the next pass).
class RoleAssignmentResource final : public lro::ResourceSpec {
 public:
  RoleAssignmentResource(lro::ResourceRef ref, std::string roleDefinitionId,
                         std::optional<std::string> principalId)
      : ref_(std::move(ref)),
        roleDefinitionId_(std::move(roleDefinitionId)),
        principalId_(std::move(principalId)) {}

  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const override;

 private:
  lro::ResourceRef ref_;
  std::string roleDefinitionId_;
  std::optional<std::string> principalId_;
};

// The VM's tags (CAPZ's tags service): the VM is created with them; when additionalTags change
// later, the VM is PUT again as it stands with the tags merged in (the runner PUTs; ARM's tags
// PATCH would do the same to the tags). Tags that left additionalTags are kept.
class VmTagsResource final : public lro::ResourceSpec {
 public:
  VmTagsResource(lro::ResourceRef vm, api::capz::Tags tags)
      : ref_(std::move(vm)), tags_(std::move(tags)) {}

  lro::ResourceRef resource() const override { return ref_; }
  core::Result<std::optional<api::Json>> parameters(const api::Json& existing) const override;

 private:
  lro::ResourceRef ref_;
  api::capz::Tags tags_;
};

}  // namespace nodewright::controllers::capz::azuremachine
