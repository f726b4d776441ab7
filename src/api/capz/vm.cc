#include "api/capz/vm.h"

#include <map>
#include <regex>
#include <set>

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<ImagePlan>) {
  static const StructSchema s =
      StructBuilder<ImagePlan>("ImagePlan", "Purchase plan of a third-party image.")
          .field<&ImagePlan::publisher>("publisher", "Organisation that published the image.")
          .required()
          .field<&ImagePlan::offer>("offer", "Group of related images, e.g. UbuntuServer.")
          .required()
          .field<&ImagePlan::sku>("sku", "Instance of an offer, e.g. 22_04-lts-gen2.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureMarketplaceImage>) {
  static const StructSchema s =
      StructBuilder<AzureMarketplaceImage>("AzureMarketplaceImage",
                                           "An image from the Azure Marketplace.")
          .field<&AzureMarketplaceImage::publisher>("publisher",
                                                    "Organisation that published the image.")
          .required()
          .field<&AzureMarketplaceImage::offer>("offer", "Group of related images.")
          .required()
          .field<&AzureMarketplaceImage::sku>("sku", "Instance of the offer.")
          .required()
          .field<&AzureMarketplaceImage::version>(
              "version", "Image version, Major.Minor.Build or 'latest' (resolved at deploy time).")
          .required()
          .field<&AzureMarketplaceImage::thirdPartyImage>(
              "thirdPartyImage", "Whether a purchase plan must be generated for the image.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureSharedGalleryImage>) {
  static const StructSchema s =
      StructBuilder<AzureSharedGalleryImage>(
          "AzureSharedGalleryImage", "An image in a Shared Image Gallery (deprecated form).")
          .field<&AzureSharedGalleryImage::subscriptionID>("subscriptionID",
                                                           "Subscription of the gallery.")
          .required()
          .field<&AzureSharedGalleryImage::resourceGroup>("resourceGroup",
                                                          "Resource group of the gallery.")
          .required()
          .field<&AzureSharedGalleryImage::gallery>("gallery", "Name of the gallery.")
          .required()
          .field<&AzureSharedGalleryImage::name>("name", "Name of the image definition.")
          .required()
          .field<&AzureSharedGalleryImage::version>("version",
                                                    "Image version, Major.Minor.Build or 'latest'.")
          .required()
          .field<&AzureSharedGalleryImage::publisher>(
              "publisher", "Publisher for the purchase plan of the source image, if it needs one.")
          .field<&AzureSharedGalleryImage::offer>("offer", "Offer for the purchase plan.")
          .field<&AzureSharedGalleryImage::sku>("sku", "SKU for the purchase plan.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AzureComputeGalleryImage>) {
  static const StructSchema s =
      StructBuilder<AzureComputeGalleryImage>("AzureComputeGalleryImage",
                                              "An image in an Azure Compute Gallery.")
          .field<&AzureComputeGalleryImage::gallery>("gallery", "Name of the gallery.")
          .required()
          .field<&AzureComputeGalleryImage::name>("name", "Name of the image definition.")
          .required()
          .field<&AzureComputeGalleryImage::version>(
              "version", "Image version, Major.Minor.Build or 'latest'.")
          .required()
          .field<&AzureComputeGalleryImage::subscriptionID>("subscriptionID",
                                                            "Subscription of a private gallery.")
          .field<&AzureComputeGalleryImage::resourceGroup>("resourceGroup",
                                                           "Resource group of a private gallery.")
          .field<&AzureComputeGalleryImage::plan>("plan", "Purchase plan of the image.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Image>) {
  static const StructSchema s =
      StructBuilder<Image>("Image",
                           "The VM image: exactly one of id, marketplace, sharedGallery or "
                           "computeGallery.")
          .field<&Image::id>("id", "Azure resource ID of an image.")
          .field<&Image::sharedGallery>("sharedGallery",
                                        "Image from a Shared Image Gallery (deprecated).")
          .field<&Image::marketplace>("marketplace", "Image from the Azure Marketplace.")
          .field<&Image::computeGallery>("computeGallery", "Image from an Azure Compute Gallery.")
          .validate([](const Image& image, const FieldPath& path, FieldErrors& errors) {
            // Report every source after the first, in declaration order, as CAPZ does.
            bool found = image.id.has_value();
            if (image.id && image.id->empty()) {
              errors.push_back({path.child("id").str(), fielderr::required()});
            }
            auto another = [&](bool present, const char* name, const char* detail) {
              if (!present) {
                return;
              }
              if (found) {
                errors.push_back({path.child(name).str(), fielderr::forbidden(detail)});
              }
              found = true;
            };
            another(image.marketplace.has_value(), "marketplace",
                    "Marketplace cannot be used as an image ID has been specified");
            another(image.sharedGallery.has_value(), "sharedGallery",
                    "SharedGallery cannot be used as an image ID, Marketplace or ComputeGallery "
                    "images has been specified");
            another(image.computeGallery.has_value(), "computeGallery",
                    "ComputeGallery cannot be used as an image ID, Marketplace or SharedGallery "
                    "images has been specified");
            if (!found) {
              errors.push_back({path.str(), fielderr::required() +
                                                ": You must supply an ID, Marketplace, "
                                                "SharedGallery or ComputeGallery image details"});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<DiskEncryptionSetParameters>) {
  static const StructSchema s =
      StructBuilder<DiskEncryptionSetParameters>("DiskEncryptionSetParameters",
                                                 "A customer-managed disk encryption set.")
          .field<&DiskEncryptionSetParameters::id>(
              "id", "Resource ID of the disk encryption set, in the same subscription.")
          .build();
  return s;
}

const StructSchema& describe(Tag<VMDiskSecurityProfile>) {
  static const StructSchema s =
      StructBuilder<VMDiskSecurityProfile>("VMDiskSecurityProfile",
                                           "Disk security settings of a Confidential VM.")
          .field<&VMDiskSecurityProfile::diskEncryptionSet>(
              "diskEncryptionSet", "Encryption set for the OS disk and VM guest state.")
          .field<&VMDiskSecurityProfile::securityEncryptionType>(
              "securityEncryptionType",
              "What is encrypted: VMGuestStateOnly or DiskWithVMGuestState.")
          .enums({"VMGuestStateOnly", "DiskWithVMGuestState"})
          .build();
  return s;
}

const StructSchema& describe(Tag<ManagedDiskParameters>) {
  static const StructSchema s =
      StructBuilder<ManagedDiskParameters>("ManagedDiskParameters",
                                           "Settings of an Azure managed disk.")
          .field<&ManagedDiskParameters::storageAccountType>(
              "storageAccountType", "Storage type of the disk, e.g. Premium_LRS.")
          .required()
          .enums({"Premium_LRS", "PremiumV2_LRS", "Premium_ZRS", "StandardSSD_LRS",
                  "StandardSSD_ZRS", "Standard_LRS", "UltraSSD_LRS"})
          .field<&ManagedDiskParameters::diskEncryptionSet>(
              "diskEncryptionSet", "Customer-managed encryption set of the disk.")
          .field<&ManagedDiskParameters::securityProfile>(
              "securityProfile", "Security settings of the disk (Confidential VMs only).")
          .build();
  return s;
}

const StructSchema& describe(Tag<DiffDiskSettings>) {
  static const StructSchema s =
      StructBuilder<DiffDiskSettings>("DiffDiskSettings", "Ephemeral OS disk settings.")
          .field<&DiffDiskSettings::option>("option", "Local makes the OS disk ephemeral.")
          .required()
          .enums({"Local"})
          .field<&DiffDiskSettings::placement>(
              "placement", "Where the ephemeral disk lives: CacheDisk, ResourceDisk or NvmeDisk.")
          .enums({"CacheDisk", "ResourceDisk", "NvmeDisk"})
          .build();
  return s;
}

const StructSchema& describe(Tag<OSDisk>) {
  static const StructSchema s =
      StructBuilder<OSDisk>("OSDisk", "The operating system disk of a VM.")
          .field<&OSDisk::osType>("osType", "Operating system on the disk: Linux or Windows.")
          .required()
          .field<&OSDisk::diskSizeGB>("diskSizeGB", "Size of the disk in GB, 1 to 2048.")
          .min(1)
          .max(2048)
          .field<&OSDisk::managedDisk>("managedDisk", "Managed disk settings.")
          .field<&OSDisk::diffDiskSettings>("diffDiskSettings", "Ephemeral OS disk settings.")
          .field<&OSDisk::cachingType>("cachingType", "Host caching: None, ReadOnly or ReadWrite.")
          .enums({"None", "ReadOnly", "ReadWrite"})
          .defaultsTo("None")
          .validate([](const OSDisk& disk, const FieldPath& path, FieldErrors& errors) {
            if (disk.managedDisk && disk.managedDisk->storageAccountType == "UltraSSD_LRS") {
              errors.push_back({path.child("managedDisk").child("storageAccountType").str(),
                                fielderr::invalid(Json("UltraSSD_LRS"),
                                                  "UltraSSD_LRS can only be used with data disks, "
                                                  "it cannot be used with OS Disks")});
            }
            if (disk.diffDiskSettings && disk.managedDisk && disk.managedDisk->diskEncryptionSet) {
              errors.push_back({path.child("managedDisk").child("diskEncryptionSet").str(),
                                fielderr::invalid(Json(disk.managedDisk->diskEncryptionSet->id),
                                                  "diskEncryptionSet is not supported when "
                                                  "diffDiskSettings.option is 'Local'")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<DataDisk>) {
  static const StructSchema s =
      StructBuilder<DataDisk>("DataDisk", "A data disk attached to a VM.")
          .field<&DataDisk::nameSuffix>(
              "nameSuffix", "Suffix of the disk name, which is <machine name>_<nameSuffix>.")
          .required()
          .field<&DataDisk::diskSizeGB>("diskSizeGB", "Size of the disk in GB, 4 to 32767.")
          .required()
          .min(4)
          .max(32767)
          .field<&DataDisk::managedDisk>("managedDisk", "Managed disk settings.")
          .field<&DataDisk::lun>("lun", "Logical unit number, 0 to 63, unique within the VM.")
          .min(0)
          .max(63)
          .field<&DataDisk::cachingType>("cachingType",
                                         "Host caching: None, ReadOnly or ReadWrite.")
          .enums({"None", "ReadOnly", "ReadWrite"})
          .defaultsTo("ReadWrite")
          .build();
  return s;
}

const StructSchema& describe(Tag<SpotVMOptions>) {
  static const StructSchema s =
      StructBuilder<SpotVMOptions>("SpotVMOptions", "Run the VM as an Azure Spot VM.")
          .field<&SpotVMOptions::maxPrice>(
              "maxPrice",
              "Highest hourly price to pay; unset or -1 pays up to the on-demand price.")
          .field<&SpotVMOptions::evictionPolicy>(
              "evictionPolicy", "What eviction does to the VM: Deallocate (default) or Delete.")
          .enums({"Deallocate", "Delete"})
          .defaultsTo("Deallocate")
          .build();
  return s;
}

const StructSchema& describe(Tag<UefiSettings>) {
  static const StructSchema s =
      StructBuilder<UefiSettings>("UefiSettings", "Secure boot and vTPM settings.")
          .field<&UefiSettings::secureBootEnabled>("secureBootEnabled",
                                                   "Whether secure boot is enabled.")
          .field<&UefiSettings::vTpmEnabled>("vTpmEnabled", "Whether the virtual TPM is enabled.")
          .build();
  return s;
}

const StructSchema& describe(Tag<SecurityProfile>) {
  static const StructSchema s =
      StructBuilder<SecurityProfile>("SecurityProfile", "Security settings of a VM.")
          .field<&SecurityProfile::encryptionAtHost>("encryptionAtHost",
                                                     "Whether host-based encryption is enabled.")
          .field<&SecurityProfile::securityType>("securityType",
                                                 "ConfidentialVM or TrustedLaunch; enables UEFI.")
          .enums({"ConfidentialVM", "TrustedLaunch"})
          .field<&SecurityProfile::uefiSettings>("uefiSettings", "Secure boot and vTPM settings.")
          .build();
  return s;
}

const StructSchema& describe(Tag<UserManagedBootDiagnostics>) {
  static const StructSchema s =
      StructBuilder<UserManagedBootDiagnostics>(
          "UserManagedBootDiagnostics", "A storage account the user provides for boot logs.")
          .field<&UserManagedBootDiagnostics::storageAccountURI>(
              "storageAccountURI", "Blob endpoint of the storage account (https://...).")
          .required()
          .maxLength(1024)
          .pattern("^https://")
          .validate(
              [](const UserManagedBootDiagnostics& u, const FieldPath& path, FieldErrors& errors) {
                if (!u.storageAccountURI.empty() && u.storageAccountURI.rfind("https://", 0) != 0) {
                  errors.push_back(
                      {path.child("storageAccountURI").str(),
                       fielderr::invalid(Json(u.storageAccountURI), "must start with https://")});
                }
              })
          .build();
  return s;
}

const StructSchema& describe(Tag<BootDiagnostics>) {
  static const StructSchema s =
      StructBuilder<BootDiagnostics>("BootDiagnostics", "Capture of the VM's serial console.")
          .field<&BootDiagnostics::storageAccountType>(
              "storageAccountType", "Where boot logs go: Managed, UserManaged or Disabled.")
          .required()
          .enums({"Managed", "UserManaged", "Disabled"})
          .field<&BootDiagnostics::userManaged>("userManaged",
                                                "The storage account, for UserManaged.")
          .validate([](const BootDiagnostics& boot, const FieldPath& path, FieldErrors& errors) {
            if (boot.storageAccountType == "UserManaged" && !boot.userManaged) {
              errors.push_back({path.child("userManaged").str(),
                                fielderr::required() + ": userManaged must be specified when "
                                                       "storageAccountType is 'UserManaged'"});
            }
            if (boot.storageAccountType != "UserManaged" && boot.userManaged) {
              errors.push_back(
                  {path.child("userManaged").str(),
                   fielderr::forbidden("userManaged must not be set when storageAccountType is '" +
                                       boot.storageAccountType + "'")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Diagnostics>) {
  static const StructSchema s =
      StructBuilder<Diagnostics>("Diagnostics", "Diagnostic settings of a VM.")
          .field<&Diagnostics::boot>("boot", "Boot diagnostics; Managed when unset.")
          .build();
  return s;
}

const StructSchema& describe(Tag<NetworkInterface>) {
  static const StructSchema s =
      StructBuilder<NetworkInterface>("NetworkInterface", "A network interface of a VM.")
          .field<&NetworkInterface::subnetName>("subnetName", "Subnet the interface is placed in.")
          .field<&NetworkInterface::privateIPConfigs>(
              "privateIPConfigs", "Number of private IP addresses of the interface.")
          .min(1)
          .defaultsTo(1)
          .field<&NetworkInterface::acceleratedNetworking>(
              "acceleratedNetworking",
              "Accelerated networking; unset chooses by what the VM size supports.")
          .build();
  return s;
}

const StructSchema& describe(Tag<UserAssignedIdentity>) {
  static const StructSchema s =
      StructBuilder<UserAssignedIdentity>("UserAssignedIdentity",
                                          "A user-assigned managed identity.")
          .field<&UserAssignedIdentity::providerID>(
              "providerID", "azure:///subscriptions/.../userAssignedIdentities/<name>.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<SystemAssignedIdentityRole>) {
  static const StructSchema s =
      StructBuilder<SystemAssignedIdentityRole>("SystemAssignedIdentityRole",
                                                "Role given to the VM's system-assigned identity.")
          .field<&SystemAssignedIdentityRole::name>(
              "name", "Name (a GUID) of the role assignment; generated when unset.")
          .field<&SystemAssignedIdentityRole::definitionID>("definitionID",
                                                            "Role definition to assign.")
          .field<&SystemAssignedIdentityRole::scope>(
              "scope", "Scope of the assignment; the subscription when unset.")
          .build();
  return s;
}

const StructSchema& describe(Tag<AdditionalCapabilities>) {
  static const StructSchema s =
      StructBuilder<AdditionalCapabilities>("AdditionalCapabilities", "Optional VM capabilities.")
          .field<&AdditionalCapabilities::ultraSSDEnabled>(
              "ultraSSDEnabled", "Ultra SSD support; on by default when an UltraSSD disk is used.")
          .build();
  return s;
}

const StructSchema& describe(Tag<VMExtension>) {
  static const StructSchema s =
      StructBuilder<VMExtension>("VMExtension", "A VM extension to install.")
          .field<&VMExtension::name>("name", "Name of the extension.")
          .required()
          .field<&VMExtension::publisher>("publisher", "Publisher of the extension handler.")
          .required()
          .field<&VMExtension::version>("version", "Version of the extension handler.")
          .required()
          .field<&VMExtension::settings>("settings", "Public settings of the extension.")
          .field<&VMExtension::protectedSettings>("protectedSettings",
                                                  "Protected settings of the extension.")
          .build();
  return s;
}

}  // namespace nodewright::api::capz
