#include "controllers/capi/bootstrap.h"

#include "api/capi/common.h"
#include "api/core/secret.h"
#include "api/core/validation.h"
#include "controllers/capi/external.h"
#include "controllers/capi/well_known.h"

namespace nodewright::controllers::capi {

using api::corev1::Secret;

std::string bootstrapSecretName(const std::string& ownerName) {
  return ownerName + kBootstrapSecretSuffix;
}

std::string cloudConfig(const BootstrapOwner& owner) {
  std::string doc = "#cloud-config\n";
  doc += "hostname: " + owner.meta.name + "\n";
  doc += "write_files:\n";
  doc += "  - path: /etc/nodewright/bootstrap.env\n";
  doc += "    permissions: \"0644\"\n";
  doc += "    content: |\n";
  doc += "      CLUSTER_NAME=" + owner.clusterName + "\n";
  doc += "      " + owner.kind + "=" + owner.meta.namespace_ + "/" + owner.meta.name + "\n";
  if (owner.version) {
    doc += "      KUBERNETES_VERSION=" + *owner.version + "\n";
  }
  doc += "runcmd:\n";
  // The sentinel CAPI bootstrap providers write and CAPZ's bootstrap extension waits for.
  doc +=
      "  - [ sh, -c, 'mkdir -p /run/cluster-api && echo success > "
      "/run/cluster-api/bootstrap-success.complete' ]\n";
  return doc;
}

kube::ApiResult<std::string> ensureBootstrapSecret(kube::Client& client,
                                                   const BootstrapOwner& owner) {
  kube::Typed<Secret> secrets(client);
  const std::string name = bootstrapSecretName(owner.meta.name);
  auto existing = secrets.get(owner.meta.namespace_, name);
  if (existing) {
    return name;
  }
  if (!existing.error().is(kube::Reason::NotFound)) {
    return tl::unexpected(existing.error());
  }
  Secret secret;
  secret.apiVersion = "v1";
  secret.kind = "Secret";
  secret.metadata.name = name;
  secret.metadata.namespace_ = owner.meta.namespace_;
  secret.metadata.labels[api::capi::kClusterNameLabel] = owner.clusterName;
  secret.metadata.ownerReferences.push_back(controllerRef(owner.kind, owner.meta));
  secret.type = kBootstrapSecretType;
  secret.data[kBootstrapValueKey] = api::corev1::encodeBase64(cloudConfig(owner));
  secret.data[kBootstrapFormatKey] = api::corev1::encodeBase64(kBootstrapFormatCloudConfig);
  auto created = secrets.create(secret);
  if (!created && !created.error().is(kube::Reason::AlreadyExists)) {
    return tl::unexpected(created.error());
  }
  return name;
}

kube::ApiResult<bool> deleteBootstrapSecret(kube::Client& client, const api::ObjectMeta& owner) {
  kube::Typed<Secret> secrets(client);
  const std::string name = bootstrapSecretName(owner.name);
  auto existing = secrets.get(owner.namespace_, name);
  if (!existing) {
    if (existing.error().is(kube::Reason::NotFound)) {
      return true;
    }
    return tl::unexpected(existing.error());
  }
  if (controllerUid(existing->metadata) != owner.uid) {
    return true;
  }
  auto removed = secrets.remove(owner.namespace_, name);
  if (!removed && !removed.error().is(kube::Reason::NotFound)) {
    return tl::unexpected(removed.error());
  }
  return true;
}

}  // namespace nodewright::controllers::capi
