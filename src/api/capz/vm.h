#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capz/network.h"

// Virtual machine settings shared by AzureMachine(Template)s and AzureMachinePool templates:
// image, disks, identity, spot, security and diagnostics options, network interfaces.
namespace nodewright::api::capz {

struct ImagePlan {
  std::string publisher;
  std::string offer;
  std::string sku;
};
const reflect::StructSchema& describe(reflect::Tag<ImagePlan>);

struct AzureMarketplaceImage {
  std::string publisher;
  std::string offer;
  std::string sku;
  std::string version;
  bool thirdPartyImage = false;
};
const reflect::StructSchema& describe(reflect::Tag<AzureMarketplaceImage>);

struct AzureSharedGalleryImage {
  std::string subscriptionID;
  std::string resourceGroup;
  std::string gallery;
  std::string name;
  std::string version;
  std::optional<std::string> publisher;
  std::optional<std::string> offer;
  std::optional<std::string> sku;
};
const reflect::StructSchema& describe(reflect::Tag<AzureSharedGalleryImage>);

struct AzureComputeGalleryImage {
  std::string gallery;
  std::string name;
  std::string version;
  std::optional<std::string> subscriptionID;
  std::optional<std::string> resourceGroup;
  std::optional<ImagePlan> plan;
};
const reflect::StructSchema& describe(reflect::Tag<AzureComputeGalleryImage>);

// Exactly one source: an image ID, a marketplace image, or a (shared or compute) gallery image.
struct Image {
  std::optional<std::string> id;
  std::optional<AzureSharedGalleryImage> sharedGallery;
  std::optional<AzureMarketplaceImage> marketplace;
  std::optional<AzureComputeGalleryImage> computeGallery;
};
const reflect::StructSchema& describe(reflect::Tag<Image>);

struct DiskEncryptionSetParameters {
  std::string id;
};
const reflect::StructSchema& describe(reflect::Tag<DiskEncryptionSetParameters>);

struct VMDiskSecurityProfile {
  std::optional<DiskEncryptionSetParameters> diskEncryptionSet;
  std::optional<std::string> securityEncryptionType;
};
const reflect::StructSchema& describe(reflect::Tag<VMDiskSecurityProfile>);

struct ManagedDiskParameters {
  std::string storageAccountType;
  std::optional<DiskEncryptionSetParameters> diskEncryptionSet;
  std::optional<VMDiskSecurityProfile> securityProfile;
};
const reflect::StructSchema& describe(reflect::Tag<ManagedDiskParameters>);

struct DiffDiskSettings {
  std::string option;  // Local
  std::optional<std::string> placement;
};
const reflect::StructSchema& describe(reflect::Tag<DiffDiskSettings>);

struct OSDisk {
  std::string osType;
  std::optional<int32_t> diskSizeGB;
  std::optional<ManagedDiskParameters> managedDisk;
  std::optional<DiffDiskSettings> diffDiskSettings;
  std::string cachingType;
};
const reflect::StructSchema& describe(reflect::Tag<OSDisk>);

struct DataDisk {
  std::string nameSuffix;
  int32_t diskSizeGB = 0;
  std::optional<ManagedDiskParameters> managedDisk;
  std::optional<int32_t> lun;
  std::string cachingType;
};
const reflect::StructSchema& describe(reflect::Tag<DataDisk>);

struct SpotVMOptions {
  std::optional<core::Quantity> maxPrice;
  std::optional<std::string> evictionPolicy;
};
const reflect::StructSchema& describe(reflect::Tag<SpotVMOptions>);

struct UefiSettings {
  std::optional<bool> secureBootEnabled;
  std::optional<bool> vTpmEnabled;
};
const reflect::StructSchema& describe(reflect::Tag<UefiSettings>);

struct SecurityProfile {
  std::optional<bool> encryptionAtHost;
  std::optional<std::string> securityType;
  std::optional<UefiSettings> uefiSettings;
};
const reflect::StructSchema& describe(reflect::Tag<SecurityProfile>);

struct UserManagedBootDiagnostics {
  std::string storageAccountURI;
};
const reflect::StructSchema& describe(reflect::Tag<UserManagedBootDiagnostics>);

struct BootDiagnostics {
  std::string storageAccountType;  // Managed, UserManaged, Disabled
  std::optional<UserManagedBootDiagnostics> userManaged;
};
const reflect::StructSchema& describe(reflect::Tag<BootDiagnostics>);

struct Diagnostics {
  std::optional<BootDiagnostics> boot;
};
const reflect::StructSchema& describe(reflect::Tag<Diagnostics>);

struct NetworkInterface {
  std::string subnetName;
  int32_t privateIPConfigs = 0;
  std::optional<bool> acceleratedNetworking;
};
const reflect::StructSchema& describe(reflect::Tag<NetworkInterface>);

struct UserAssignedIdentity {
  std::string providerID;
};
const reflect::StructSchema& describe(reflect::Tag<UserAssignedIdentity>);

struct SystemAssignedIdentityRole {
  std::string name;
  std::string definitionID;
  std::string scope;
};
const reflect::StructSchema& describe(reflect::Tag<SystemAssignedIdentityRole>);

struct AdditionalCapabilities {
  std::optional<bool> ultraSSDEnabled;
};
const reflect::StructSchema& describe(reflect::Tag<AdditionalCapabilities>);

struct VMExtension {
  std::string name;
  std::string publisher;
  std::string version;
  Tags settings;
  Tags protectedSettings;
};
const reflect::StructSchema& describe(reflect::Tag<VMExtension>);

// Gives data disks without a LUN the lowest free one, as the CAPZ webhook does.
void defaultDataDisks(std::vector<DataDisk>& disks);

// nameSuffix and lun unique across the disks of one VM.
void validateDataDisks(const std::vector<DataDisk>& disks, const FieldPath& path,
                       FieldErrors& errors);

// A base64 encoded OpenSSH public key ("ssh-rsa AAAA... comment").
void validateSSHPublicKey(const std::string& key, const FieldPath& path, FieldErrors& errors);

// identity against roleAssignmentName, systemAssignedIdentityRole and userAssignedIdentities.
void validateIdentity(const std::string& identity, const std::string& roleAssignmentName,
                      const std::optional<SystemAssignedIdentityRole>& role,
                      const std::vector<UserAssignedIdentity>& userAssigned, const FieldPath& spec,
                      FieldErrors& errors);

// The deprecated single-NIC fields (subnetName, acceleratedNetworking) against
// networkInterfaces, and the per-interface rules.
void validateNetworkInterfaces(const std::string& subnetName,
                               const std::optional<bool>& acceleratedNetworking,
                               const std::vector<NetworkInterface>& nics, const FieldPath& spec,
                               FieldErrors& errors);

}  // namespace nodewright::api::capz
