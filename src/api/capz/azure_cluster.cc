#include "api/capz/azure_cluster.h"

#include <regex>

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<ExtendedLocationSpec>) {
  static const StructSchema s =
      StructBuilder<ExtendedLocationSpec>("ExtendedLocationSpec",
                                          "An Azure Edge Zone the cluster runs in.")
          .field<&ExtendedLocationSpec::name>("name", "Name of the extended location.")
          .required()
          .field<&ExtendedLocationSpec::type>("type", "Type of the extended location: EdgeZone.")
          .required()
          .enums({"EdgeZone"})
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureClusterSpec>) {
  static const StructSchema s =
      StructBuilder<AzureClusterSpec>("AzureClusterSpec", "Desired state of an AzureCluster.")
          .field<&AzureClusterSpec::networkSpec>("networkSpec", "The cluster's Azure network.")
          .field<&AzureClusterSpec::resourceGroup>(
              "resourceGroup", "Resource group of the cluster; defaults to the cluster's name.")
          .field<&AzureClusterSpec::subscriptionID>("subscriptionID",
                                                    "Azure subscription the cluster lives in.")
          .field<&AzureClusterSpec::location>("location", "Azure region, e.g. westeurope.")
          .required()
          .field<&AzureClusterSpec::extendedLocation>("extendedLocation",
                                                      "Azure Edge Zone of the cluster.")
          .field<&AzureClusterSpec::controlPlaneEndpoint>(
              "controlPlaneEndpoint", "Endpoint of the API server; set by the controller.")
          .field<&AzureClusterSpec::additionalTags>(
              "additionalTags", "Extra tags for every Azure resource of the cluster.")
          .field<&AzureClusterSpec::identityRef>(
              "identityRef", "The AzureClusterIdentity whose credentials reconcile the cluster.")
          .field<&AzureClusterSpec::azureEnvironment>(
              "azureEnvironment", "Azure cloud, e.g. AzurePublicCloud (the default).")
          .field<&AzureClusterSpec::bastionSpec>("bastionSpec", "Bastion hosts of the cluster.")
          .field<&AzureClusterSpec::cloudProviderConfigOverrides>(
              "cloudProviderConfigOverrides",
              "Rate limits and back-offs for the Azure cloud provider config, kept verbatim.")
          .field<&AzureClusterSpec::failureDomains>(
              "failureDomains", "Availability zones the control plane may be placed in.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureClusterStatus>) {
  static const StructSchema s = [] {
    StructBuilder<AzureClusterStatus> b("AzureClusterStatus", "Observed state of an AzureCluster.");
    b.field<&AzureClusterStatus::failureDomains>(
         "failureDomains", "Availability zones of the cluster's region, for placing machines.")
        .field<&AzureClusterStatus::ready>("ready", "Whether the Azure infrastructure is ready.")
        .field<&AzureClusterStatus::conditions>("conditions",
                                                "State of each Azure service of the cluster.");
    futuresField(b);
    return b
        .validate([](const AzureClusterStatus& status, const FieldPath& path, FieldErrors& errors) {
          capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
        })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<AzureCluster>) {
  static const StructSchema s = [] {
    StructBuilder<AzureCluster> b("AzureCluster", "The Azure infrastructure of a Cluster.");
    withTypeMeta(b);
    return b.field<&AzureCluster::spec>("spec", "Desired state of the AzureCluster.")
        .field<&AzureCluster::status>("status", "Observed state of the AzureCluster.")
        .defaults(applyAzureClusterDefaults)
        .validate(validateAzureCluster)
        .build();
  }();
  return s;
}

void validateAzureCluster(const AzureCluster& cluster, const FieldPath& path, FieldErrors& errors) {
  // The name prefixes Azure resource names, whose length and alphabet are limited.
  static const std::regex nameRe(R"(^[a-z0-9][a-z0-9-]{0,42}[a-z0-9]$)");
  const std::string& name = cluster.metadata.name;
  FieldPath namePath = path.child("metadata").child("name");
  if (name.size() > 44) {
    errors.push_back({namePath.str(), fielderr::invalid(Json(name),
                                                        "Cluster Name longer than allowed length "
                                                        "of 44 characters")});
  }
  if (!name.empty() && !std::regex_match(name, nameRe)) {
    errors.push_back(
        {namePath.str(), fielderr::invalid(Json(name),
                                           "Cluster Name can contain only lowercase alphanumeric "
                                           "characters and '-', must start/end with an "
                                           "alphanumeric character")});
  }

  FieldPath spec = path.child("spec");
  const AzureClusterSpec& s = cluster.spec;
  static const std::regex resourceGroupRe(R"(^[-\w\._\(\)]+$)");
  if (!s.networkSpec.vnet.resourceGroup.empty() &&
      !std::regex_match(s.networkSpec.vnet.resourceGroup, resourceGroupRe)) {
    errors.push_back({spec.child("networkSpec").child("vnet").child("resourceGroup").str(),
                      fielderr::invalid(Json(s.networkSpec.vnet.resourceGroup),
                                        R"(resourceGroup doesn't match regex ^[-\w\._\(\)]+$)")});
  }
  if (!s.identityRef) {
    errors.push_back(
        {spec.child("identityRef").str(), fielderr::required() + ": identityRef is required"});
  } else if (s.identityRef->kind != "AzureClusterIdentity") {
    errors.push_back({spec.child("identityRef").child("kind").str(),
                      fielderr::unsupported(Json(s.identityRef->kind), {"AzureClusterIdentity"})});
  }
}

}  // namespace nodewright::api::capz
