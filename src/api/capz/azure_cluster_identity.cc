#include "api/capz/azure_cluster_identity.h"

#include <algorithm>

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// CAPZ's AzureClusterIdentity webhook (create and update).
void validateIdentity(const AzureClusterIdentitySpec& spec, const FieldPath& path,
                      FieldErrors& errors) {
  // Upstream puts the offending value in the Forbidden detail; these are paths and IDs,
  // never secrets.
  if (spec.type != kIdentityUserAssignedMSI && !spec.resourceID.empty()) {
    errors.push_back({path.child("resourceID").str(), fielderr::forbidden(spec.resourceID)});
  }
  if (spec.type != kIdentityUserAssignedIdentityCredential &&
      (!spec.userAssignedIdentityCredentialsPath.empty() ||
       !spec.userAssignedIdentityCredentialsCloudType.empty())) {
    errors.push_back({path.child("userAssignedIdentityCredentialsPath").str(),
                      fielderr::forbidden(spec.userAssignedIdentityCredentialsPath +
                                          " can only be set when AzureClusterIdentity is of type "
                                          "UserAssignedIdentityCredential")});
    // Upstream's second message ends with a space; kept for identical output.
    errors.push_back({path.child("userAssignedIdentityCredentialsCloudType").str(),
                      fielderr::forbidden(spec.userAssignedIdentityCredentialsCloudType +
                                          " can only be set when AzureClusterIdentity is of type "
                                          "UserAssignedIdentityCredential ")});
  }
}

// metav1.LabelSelectorAsSelector's refusals that the selector's own shape shows: an unknown
// operator, In/NotIn without values, Exists/DoesNotExist with values.
bool convertibleSelector(const LabelSelector& selector) {
  for (const LabelSelectorRequirement& r : selector.matchExpressions) {
    if (r.operator_ == "In" || r.operator_ == "NotIn") {
      if (r.values.empty()) {
        return false;
      }
    } else if (r.operator_ == "Exists" || r.operator_ == "DoesNotExist") {
      if (!r.values.empty()) {
        return false;
      }
    } else {
      return false;
    }
  }
  return true;
}

}  // namespace

bool isClusterNamespaceAllowed(const std::optional<AllowedNamespaces>& allowed,
                               std::string_view clusterNamespace,
                               const std::optional<Labels>& namespaceLabels) {
  if (!allowed) {
    return false;
  }
  if (!allowed->list && !allowed->selector) {
    return true;  // `allowedNamespaces: {}`
  }
  if (allowed->list && std::find(allowed->list->begin(), allowed->list->end(),
                                 clusterNamespace) != allowed->list->end()) {
    return true;
  }
  // A nil, empty or unconvertible selector matches nothing.
  if (!allowed->selector || allowed->selector->empty() ||
      !convertibleSelector(*allowed->selector) || !namespaceLabels) {
    return false;
  }
  return matches(*allowed->selector, *namespaceLabels);
}

const StructSchema& describe(Tag<SecretReference>) {
  static const StructSchema s =
      StructBuilder<SecretReference>("SecretReference", "A Secret by name and namespace.")
          .field<&SecretReference::name>("name", "Name of the Secret.")
          .field<&SecretReference::namespace_>("namespace", "Namespace of the Secret.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AllowedNamespaces>) {
  static const StructSchema s =
      StructBuilder<AllowedNamespaces>("AllowedNamespaces",
                                       "Namespaces whose clusters may use the identity.")
          .field<&AllowedNamespaces::list>("list", "Namespaces allowed by name; empty allows none.")
          .field<&AllowedNamespaces::selector>(
              "selector", "Namespaces allowed by label; empty or absent allows none.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureClusterIdentitySpec>) {
  static const StructSchema s =
      StructBuilder<AzureClusterIdentitySpec>("AzureClusterIdentitySpec",
                                              "Which Azure identity, and who may use it.")
          .field<&AzureClusterIdentitySpec::type>("type", "Kind of Azure identity.")
          .required()
          .enums({kIdentityServicePrincipal, kIdentityUserAssignedMSI,
                  kIdentityManualServicePrincipal, kIdentityServicePrincipalCertificate,
                  kIdentityWorkloadIdentity, kIdentityUserAssignedIdentityCredential})
          .field<&AzureClusterIdentitySpec::resourceID>(
              "resourceID", "Deprecated, no effect; only allowed for UserAssignedMSI.")
          .field<&AzureClusterIdentitySpec::clientID>(
              "clientID", "Client ID of the service principal or managed identity.")
          .required()
          .field<&AzureClusterIdentitySpec::clientSecret>(
              "clientSecret", "Secret holding the service principal's password or certificate.")
          .field<&AzureClusterIdentitySpec::certPath>(
              "certPath", "Path of a certificate file; preferred over clientSecret when set.")
          .field<&AzureClusterIdentitySpec::userAssignedIdentityCredentialsPath>(
              "userAssignedIdentityCredentialsPath",
              "Path of a user-assigned identity credentials JSON file.")
          .field<&AzureClusterIdentitySpec::userAssignedIdentityCredentialsCloudType>(
              "userAssignedIdentityCredentialsCloudType",
              "Cloud of those credentials: public (default), usgovernment or china.")
          .field<&AzureClusterIdentitySpec::tenantID>("tenantID", "Entra tenant of the identity.")
          .required()
          .field<&AzureClusterIdentitySpec::allowedNamespaces>(
              "allowedNamespaces",
              "Namespaces whose clusters may use the identity: absent allows none, not even "
              "the identity's own; {} allows all; otherwise those listed or matching the "
              "selector.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureClusterIdentityStatus>) {
  static const StructSchema s =
      StructBuilder<AzureClusterIdentityStatus>("AzureClusterIdentityStatus",
                                                "Observed state of an AzureClusterIdentity.")
          .field<&AzureClusterIdentityStatus::conditions>("conditions",
                                                          "Current state of the identity.")
          .validate([](const AzureClusterIdentityStatus& status, const FieldPath& path,
                       FieldErrors& errors) {
            capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureClusterIdentity>) {
  static const StructSchema s = [] {
    StructBuilder<AzureClusterIdentity> b("AzureClusterIdentity",
                                          "Azure credentials that AzureClusters reference.");
    withTypeMeta(b);
    return b.field<&AzureClusterIdentity::spec>("spec", "Desired state of the identity.")
        .field<&AzureClusterIdentity::status>("status", "Observed state of the identity.")
        .validate([](const AzureClusterIdentity& id, const FieldPath& path, FieldErrors& errors) {
          validateIdentity(id.spec, path.child("spec"), errors);
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::capz
