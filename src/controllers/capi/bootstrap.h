#pragma once

#include <optional>
#include <string>

#include "api/meta.h"
#include "kube/client.h"

// The minimal bootstrap provider. It is part of the Machine and MachinePool flows, not a
// controller of its own: nodewright registers no bootstrap config kind (KubeadmConfig), so a
// Machine whose spec.bootstrap has a configRef but no dataSecretName gets its data here, as a
// Secret `<owner>-bootstrap` of type cluster.x-k8s.io/secret (CAPI's bootstrap contract: key
// "value" holds the data, key "format" says how to read it) owned by the Machine, so that the
// infrastructure provider finds bootstrap data and the contract is complete. The data is a
// small cloud-config (hostname and identifying files); it joins no real control plane, which
// embedded mode does not have.
namespace nodewright::controllers::capi {

struct BootstrapOwner {
  std::string kind;  // Machine or MachinePool
  const api::ObjectMeta& meta;
  std::string clusterName;
  std::optional<std::string> version;
};

// `<owner>-bootstrap`.
std::string bootstrapSecretName(const std::string& ownerName);

// The cloud-config document the Secret's "value" holds.
std::string cloudConfig(const BootstrapOwner& owner);

// Creates the owner's bootstrap Secret unless it exists; returns its name. Idempotent.
kube::ApiResult<std::string> ensureBootstrapSecret(kube::Client& client,
                                                   const BootstrapOwner& owner);

// Deletes the owner's bootstrap Secret if this provider wrote it (it is owned by the owner's
// uid); a Secret the user named in dataSecretName is left alone. True once none is left.
kube::ApiResult<bool> deleteBootstrapSecret(kube::Client& client, const api::ObjectMeta& owner);

}  // namespace nodewright::controllers::capi
