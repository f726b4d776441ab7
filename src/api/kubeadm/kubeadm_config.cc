#include "api/kubeadm/kubeadm_config.h"

#include <regex>
#include <set>

#include "api/codec.h"

namespace nodewright::api::kubeadm {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

// CAPI's webhook messages, so that users see the same text as against a real management
// cluster.
constexpr const char* kConflictingFileSource =
    "only one of content or contentFrom may be specified for a single file";
constexpr const char* kConflictingUserSource =
    "only one of passwd or passwdFrom may be specified for a single user";
constexpr const char* kMissingSecretName = "secret file source must specify non-empty secret name";
constexpr const char* kMissingSecretKey = "secret file source must specify non-empty secret key";
constexpr const char* kPathConflict = "path property must be unique among all files";
constexpr const char* kCannotUseWithIgnition =
    "not supported when spec.format is set to: \"ignition\"";

void requireSecretRef(const std::string& name, const std::string& key, const FieldPath& secret,
                      FieldErrors& errors) {
  if (name.empty()) {
    errors.push_back(
        {secret.child("name").str(), fielderr::required() + ": " + kMissingSecretName});
  }
  if (key.empty()) {
    errors.push_back({secret.child("key").str(), fielderr::required() + ": " + kMissingSecretKey});
  }
}

void validateFiles(const KubeadmConfigSpec& spec, const FieldPath& path, FieldErrors& errors) {
  std::set<std::string> seen;
  for (size_t i = 0; i < spec.files.size(); ++i) {
    const File& file = spec.files[i];
    FieldPath at = path.child("files").index(i);
    if (!file.content.empty() && file.contentFrom) {
      errors.push_back({at.str(), fielderr::invalid(toJson(file), kConflictingFileSource)});
    }
    if (file.contentFrom) {
      requireSecretRef(file.contentFrom->secret.name, file.contentFrom->secret.key,
                       at.child("contentFrom").child("secret"), errors);
    }
    if (!seen.insert(file.path).second) {
      errors.push_back({at.child("path").str(), fielderr::invalid(toJson(file), kPathConflict)});
    }
  }
}

void validateUsers(const KubeadmConfigSpec& spec, const FieldPath& path, FieldErrors& errors) {
  for (size_t i = 0; i < spec.users.size(); ++i) {
    const User& user = spec.users[i];
    FieldPath at = path.child("users").index(i);
    if (user.passwd.value_or("") != "" && user.passwdFrom) {
      // The value would echo the password; name the user only.
      errors.push_back({at.str(), fielderr::invalid(Json(user.name), kConflictingUserSource)});
    }
    if (user.passwdFrom) {
      requireSecretRef(user.passwdFrom->secret.name, user.passwdFrom->secret.key,
                       at.child("passwdFrom").child("secret"), errors);
    }
  }
}

// CAPI with the KubeadmBootstrapFormatIgnition gate enabled.
void validateIgnition(const KubeadmConfigSpec& spec, const FieldPath& path, FieldErrors& errors) {
  if (spec.format != kFormatIgnition) {
    if (spec.ignition) {
      errors.push_back({path.child("format").str(),
                        fielderr::invalid(Json(spec.format),
                                          "must be set to \"ignition\" if spec.ignition is set")});
    }
    return;
  }
  for (size_t i = 0; i < spec.users.size(); ++i) {
    if (spec.users[i].inactive.value_or(false)) {
      errors.push_back({path.child("users").index(i).child("inactive").str(),
                        fielderr::forbidden(kCannotUseWithIgnition)});
    }
  }
  for (size_t i = 0; i < spec.files.size(); ++i) {
    const std::string& encoding = spec.files[i].encoding;
    if (encoding == "gzip" || encoding == "gzip+base64") {
      errors.push_back({path.child("files").index(i).child("encoding").str(),
                        fielderr::forbidden(kCannotUseWithIgnition)});
    }
  }
  if (spec.bootCommands) {
    errors.push_back(
        {path.child("bootCommands").str(), fielderr::forbidden(kCannotUseWithIgnition)});
  }
  if (!spec.diskSetup) {
    return;
  }
  FieldPath disk = path.child("diskSetup");
  for (size_t i = 0; i < spec.diskSetup->partitions.size(); ++i) {
    const std::string tableType = spec.diskSetup->partitions[i].tableType.value_or("");
    if (!tableType.empty() && tableType != "gpt") {
      errors.push_back({disk.child("partitions").index(i).child("tableType").str(),
                        fielderr::invalid(Json(tableType),
                                          "only partition type \"gpt\" is supported when "
                                          "spec.format is set to \"ignition\"")});
    }
  }
  for (size_t i = 0; i < spec.diskSetup->filesystems.size(); ++i) {
    const Filesystem& fs = spec.diskSetup->filesystems[i];
    FieldPath at = disk.child("filesystems").index(i);
    if (fs.replaceFS.value_or("") != "") {
      errors.push_back({at.child("replaceFS").str(), fielderr::forbidden(kCannotUseWithIgnition)});
    }
    if (fs.partition.value_or("") != "") {
      errors.push_back({at.child("partition").str(), fielderr::forbidden(kCannotUseWithIgnition)});
    }
  }
}

void validateDiskSetup(const KubeadmConfigSpec& spec, const FieldPath& path, FieldErrors& errors) {
  if (!spec.diskSetup) {
    return;
  }
  for (size_t i = 0; i < spec.diskSetup->partitions.size(); ++i) {
    int64_t total = 0;
    for (const PartitionSpec& layout : spec.diskSetup->partitions[i].diskLayout) {
      total += layout.percentage.value_or(0);
    }
    if (total > 100) {
      errors.push_back(
          {path.child("diskSetup").child("partitions").index(i).child("diskLayout").str(),
           fielderr::invalid(Json(total),
                             "the sum of all partition percentages must not be greater than "
                             "100")});
    }
  }
}

void validateDiscoveryUser(const KubeadmConfigSpec& spec, const FieldPath& path,
                           FieldErrors& errors) {
  if (!spec.joinConfiguration || !spec.joinConfiguration->discovery.file ||
      !spec.joinConfiguration->discovery.file->kubeConfig) {
    return;
  }
  const KubeConfigUser& user = spec.joinConfiguration->discovery.file->kubeConfig->user;
  if (user.authProvider && user.exec) {
    // CAPI names the path with a lower-case "kubeconfig"; kept for identical messages.
    errors.push_back(
        {path.child("joinConfiguration")
             .child("discovery")
             .child("file")
             .child("kubeconfig")
             .child("user")
             .str(),
         fielderr::invalid(toJson(user), "only one of authProvider or exec must be defined")});
  }
}

}  // namespace

void validateKubeadmConfigSpec(const KubeadmConfigSpec& spec, const FieldPath& path,
                               FieldErrors& errors) {
  validateFiles(spec, path, errors);
  validateUsers(spec, path, errors);
  validateIgnition(spec, path, errors);
  validateDiskSetup(spec, path, errors);
  validateDiscoveryUser(spec, path, errors);
}

void defaultKubeadmConfigSpec(KubeadmConfigSpec& spec) {
  if (!spec.joinConfiguration || !spec.joinConfiguration->discovery.file ||
      !spec.joinConfiguration->discovery.file->kubeConfig) {
    return;
  }
  auto& exec = spec.joinConfiguration->discovery.file->kubeConfig->user.exec;
  if (exec && exec->apiVersion.empty()) {
    exec->apiVersion = "client.authentication.k8s.io/v1";
  }
}

const StructSchema& describe(Tag<SecretFileSource>) {
  static const StructSchema s =
      StructBuilder<SecretFileSource>("SecretFileSource", "A key of a Secret holding a file.")
          .field<&SecretFileSource::name>("name", "Name of the Secret, in the config's namespace.")
          .required()
          .maxLength(253)
          .field<&SecretFileSource::key>("key", "Key of the file's content in the Secret.")
          .required()
          .maxLength(256)
          .build();
  return s;
}

const StructSchema& describe(Tag<FileSource>) {
  static const StructSchema s =
      StructBuilder<FileSource>("FileSource", "Where a file's content comes from.")
          .field<&FileSource::secret>("secret", "A key of a Secret.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<File>) {
  static const StructSchema s =
      StructBuilder<File>("File", "A file written to the machine before kubeadm runs.")
          .field<&File::path>("path", "Where the file is written.")
          .required()
          .maxLength(512)
          .field<&File::owner>("owner", "Owner of the file, \"user:group\".")
          .maxLength(256)
          .field<&File::permissions>("permissions", "Mode of the file, e.g. \"0640\".")
          .maxLength(16)
          .field<&File::encoding>("encoding", "How the content is encoded.")
          .enums({"base64", "gzip", "gzip+base64"})
          .field<&File::append>("append", "Appends to the file instead of replacing it.")
          .field<&File::content>("content", "The file's content.")
          .maxLength(10240)
          .field<&File::contentFrom>("contentFrom", "Where the content comes from instead.")
          .field<&File::contentFormat>("contentFormat",
                                       "Raw, or Template to render Go templates in the content.")
          .enums({"Raw", "Template"})
          .build();
  return s;
}

const StructSchema& describe(Tag<SecretPasswdSource>) {
  static const StructSchema s =
      StructBuilder<SecretPasswdSource>("SecretPasswdSource",
                                        "A key of a Secret holding a password hash.")
          .field<&SecretPasswdSource::name>("name", "Name of the Secret.")
          .required()
          .maxLength(253)
          .field<&SecretPasswdSource::key>("key", "Key of the password hash in the Secret.")
          .required()
          .maxLength(256)
          .build();
  return s;
}

const StructSchema& describe(Tag<PasswdSource>) {
  static const StructSchema s =
      StructBuilder<PasswdSource>("PasswdSource", "Where a user's password hash comes from.")
          .field<&PasswdSource::secret>("secret", "A key of a Secret.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<User>) {
  static const StructSchema s =
      StructBuilder<User>("User", "A user account created on the machine.")
          .field<&User::name>("name", "Login name.")
          .required()
          .maxLength(256)
          .field<&User::gecos>("gecos", "GECOS comment of the account.")
          .maxLength(256)
          .field<&User::groups>("groups", "Extra groups, comma-separated.")
          .maxLength(256)
          .field<&User::homeDir>("homeDir", "Home directory.")
          .maxLength(256)
          .field<&User::inactive>("inactive", "Creates the account disabled.")
          .field<&User::shell>("shell", "Login shell.")
          .maxLength(256)
          .field<&User::passwd>("passwd", "Password hash.")
          .sensitive()
          .maxLength(256)
          .field<&User::passwdFrom>("passwdFrom", "Where the password hash comes from instead.")
          .field<&User::primaryGroup>("primaryGroup", "Primary group.")
          .maxLength(256)
          .field<&User::lockPassword>("lockPassword", "Disables password login.")
          .field<&User::sudo>("sudo", "sudoers rule for the user.")
          .maxLength(256)
          .field<&User::sshAuthorizedKeys>("sshAuthorizedKeys",
                                           "SSH public keys allowed to log in.")
          .maxItems(100)
          .maxLength(2048)
          .build();
  return s;
}

const StructSchema& describe(Tag<NTP>) {
  static const StructSchema s = StructBuilder<NTP>("NTP", "Time synchronisation of the machine.")
                                    .field<&NTP::servers>("servers", "NTP servers.")
                                    .maxItems(100)
                                    .maxLength(512)
                                    .field<&NTP::enabled>("enabled", "Turns NTP on.")
                                    .build();
  return s;
}

const StructSchema& describe(Tag<PartitionSpec>) {
  static const StructSchema s =
      StructBuilder<PartitionSpec>("PartitionSpec", "One partition of a disk layout.")
          .field<&PartitionSpec::percentage>("percentage", "Share of the disk, in percent.")
          .min(1)
          .max(100)
          .field<&PartitionSpec::partitionType>(
              "partitionType",
              "Linux, LinuxSwap, LinuxRAID, LVM, Fat32, NTFS, LinuxExtended or "
              "a GPT partition GUID.")
          .maxLength(36)
          .validate([](const PartitionSpec& p, const FieldPath& path, FieldErrors& errors) {
            // CAPI's CEL rule on the field.
            static const std::regex known(
                "^(Linux|LinuxSwap|LinuxRAID|LVM|Fat32|NTFS|LinuxExtended|"
                "[0-9A-Fa-f]{8}(-[0-9A-Fa-f]{4}){3}-[0-9A-Fa-f]{12})$");
            if (!p.partitionType.empty() && !std::regex_match(p.partitionType, known)) {
              errors.push_back({path.child("partitionType").str(),
                                fielderr::invalid(Json(p.partitionType),
                                                  "partitionType must be one of Linux, LinuxSwap, "
                                                  "LinuxRAID, LVM, Fat32, NTFS, LinuxExtended or "
                                                  "a full GPT partition GUID")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Partition>) {
  static const StructSchema s =
      StructBuilder<Partition>("Partition", "Partitioning of one disk.")
          .field<&Partition::device>("device", "The disk.")
          .required()
          .maxLength(256)
          .field<&Partition::layout>("layout",
                                     "Creates one partition spanning the disk when "
                                     "true and diskLayout is empty.")
          .field<&Partition::overwrite>("overwrite", "Repartitions a disk that has partitions.")
          .field<&Partition::tableType>("tableType", "Partition table type: mbr or gpt.")
          .enums({"mbr", "gpt"})
          .field<&Partition::diskLayout>("diskLayout", "The partitions, in order.")
          .maxItems(100)
          .build();
  return s;
}

const StructSchema& describe(Tag<Filesystem>) {
  static const StructSchema s =
      StructBuilder<Filesystem>("Filesystem", "A filesystem created on the machine.")
          .field<&Filesystem::device>("device", "Device the filesystem is created on.")
          .required()
          .maxLength(256)
          .field<&Filesystem::filesystem>("filesystem", "Type, e.g. ext4.")
          .required()
          .maxLength(128)
          .field<&Filesystem::label>("label", "Filesystem label.")
          .maxLength(512)
          .field<&Filesystem::partition>("partition", "Partition of the device to use.")
          .maxLength(128)
          .field<&Filesystem::overwrite>("overwrite", "Replaces an existing filesystem.")
          .field<&Filesystem::replaceFS>("replaceFS",
                                         "Filesystem to replace (cloud-init's "
                                         "replace_fs).")
          .maxLength(128)
          .field<&Filesystem::extraOpts>("extraOpts", "Extra options for mkfs.")
          .maxItems(100)
          .maxLength(256)
          .build();
  return s;
}

const StructSchema& describe(Tag<DiskSetup>) {
  static const StructSchema s =
      StructBuilder<DiskSetup>("DiskSetup", "Partitions and filesystems to create.")
          .field<&DiskSetup::partitions>("partitions", "Disks to partition.")
          .maxItems(100)
          .field<&DiskSetup::filesystems>("filesystems", "Filesystems to create.")
          .maxItems(100)
          .build();
  return s;
}

const StructSchema& describe(Tag<ContainerLinuxConfig>) {
  static const StructSchema s =
      StructBuilder<ContainerLinuxConfig>("ContainerLinuxConfig",
                                          "Extra Container Linux Config merged into Ignition.")
          .field<&ContainerLinuxConfig::additionalConfig>(
              "additionalConfig", "Container Linux Config (YAML) merged into the generated one.")
          .maxLength(32768)
          .field<&ContainerLinuxConfig::strict>("strict", "Fails on warnings while translating.")
          .build();
  return s;
}

const StructSchema& describe(Tag<IgnitionSpec>) {
  static const StructSchema s =
      StructBuilder<IgnitionSpec>("IgnitionSpec", "Ignition-only settings.")
          .field<&IgnitionSpec::containerLinuxConfig>("containerLinuxConfig",
                                                      "Extra Container Linux Config.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmConfigSpec>) {
  static const StructSchema s =
      StructBuilder<KubeadmConfigSpec>("KubeadmConfigSpec",
                                       "What the bootstrap data of a machine contains.")
          .field<&KubeadmConfigSpec::clusterConfiguration>("clusterConfiguration",
                                                           "Cluster-wide kubeadm settings.")
          .field<&KubeadmConfigSpec::initConfiguration>("initConfiguration",
                                                        "Settings of kubeadm init.")
          .field<&KubeadmConfigSpec::joinConfiguration>("joinConfiguration",
                                                        "Settings of kubeadm join.")
          .field<&KubeadmConfigSpec::files>("files", "Files written before kubeadm runs.")
          .maxItems(200)
          .field<&KubeadmConfigSpec::diskSetup>("diskSetup", "Partitions and filesystems.")
          .field<&KubeadmConfigSpec::mounts>("mounts", "cloud-init mount entries.")
          .maxItems(100)
          .field<&KubeadmConfigSpec::bootCommands>("bootCommands",
                                                   "Commands run early in boot (cloud-init "
                                                   "bootcmd).")
          .maxItems(1000)
          .maxLength(10240)
          .field<&KubeadmConfigSpec::preKubeadmCommands>("preKubeadmCommands",
                                                         "Commands run before kubeadm.")
          .maxItems(1000)
          .maxLength(10240)
          .field<&KubeadmConfigSpec::postKubeadmCommands>("postKubeadmCommands",
                                                          "Commands run after kubeadm.")
          .maxItems(1000)
          .maxLength(10240)
          .field<&KubeadmConfigSpec::users>("users", "User accounts to create.")
          .maxItems(100)
          .field<&KubeadmConfigSpec::ntp>("ntp", "Time synchronisation.")
          .field<&KubeadmConfigSpec::format>("format",
                                             "Bootstrap data format: cloud-config or ignition.")
          .enums({kFormatCloudConfig, kFormatIgnition})
          .field<&KubeadmConfigSpec::verbosity>("verbosity", "kubeadm's --v.")
          .field<&KubeadmConfigSpec::useExperimentalRetryJoin>(
              "useExperimentalRetryJoin", "Retries kubeadm join (deprecated upstream).")
          .field<&KubeadmConfigSpec::ignition>("ignition", "Ignition-only settings.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmConfigStatus>) {
  static const StructSchema s =
      StructBuilder<KubeadmConfigStatus>("KubeadmConfigStatus",
                                         "Observed state of a KubeadmConfig.")
          .field<&KubeadmConfigStatus::ready>("ready", "The bootstrap data Secret exists.")
          .field<&KubeadmConfigStatus::dataSecretName>("dataSecretName",
                                                       "Name of the bootstrap data Secret.")
          .maxLength(253)
          .field<&KubeadmConfigStatus::failureReason>("failureReason",
                                                      "Terminal problem, for machines.")
          .maxLength(256)
          .field<&KubeadmConfigStatus::failureMessage>("failureMessage",
                                                       "Terminal problem, for humans.")
          .maxLength(10240)
          .field<&KubeadmConfigStatus::observedGeneration>(
              "observedGeneration", "The metadata.generation the controller last acted on.")
          .field<&KubeadmConfigStatus::conditions>("conditions",
                                                   "Current state of the KubeadmConfig.")
          .field<&KubeadmConfigStatus::v1beta2>(
              "v1beta2", "Status fields previewing the v1beta2 API, kept verbatim.")
          .validate(
              [](const KubeadmConfigStatus& status, const FieldPath& path, FieldErrors& errors) {
                capi::validateCapiConditions(status.conditions, path.child("conditions"), errors);
              })
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmConfig>) {
  static const StructSchema s = [] {
    StructBuilder<KubeadmConfig> b("KubeadmConfig",
                                   "The kubeadm bootstrap configuration of one Machine.");
    withTypeMeta(b);
    return b.field<&KubeadmConfig::spec>("spec", "Desired state of the KubeadmConfig.")
        .field<&KubeadmConfig::status>("status", "Observed state of the KubeadmConfig.")
        .defaults([](KubeadmConfig& c) { defaultKubeadmConfigSpec(c.spec); })
        .validate([](const KubeadmConfig& c, const FieldPath& path, FieldErrors& errors) {
          validateKubeadmConfigSpec(c.spec, path.child("spec"), errors);
        })
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<KubeadmConfigTemplateResource>) {
  static const StructSchema s =
      StructBuilder<KubeadmConfigTemplateResource>("KubeadmConfigTemplateResource",
                                                   "The KubeadmConfig stamped out per Machine.")
          .field<&KubeadmConfigTemplateResource::metadata>(
              "metadata", "Labels and annotations of the created KubeadmConfigs.")
          .field<&KubeadmConfigTemplateResource::spec>("spec",
                                                       "Spec of the created KubeadmConfigs.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmConfigTemplateSpec>) {
  static const StructSchema s =
      StructBuilder<KubeadmConfigTemplateSpec>("KubeadmConfigTemplateSpec",
                                               "Desired state of a KubeadmConfigTemplate.")
          .field<&KubeadmConfigTemplateSpec::template_>("template", "The KubeadmConfig to create.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeadmConfigTemplate>) {
  static const StructSchema s = [] {
    StructBuilder<KubeadmConfigTemplate> b(
        "KubeadmConfigTemplate", "A KubeadmConfig that MachineDeployments and MachineSets copy.");
    withTypeMeta(b);
    return b
        .field<&KubeadmConfigTemplate::spec>("spec", "Desired state of the KubeadmConfigTemplate.")
        .defaults([](KubeadmConfigTemplate& t) { defaultKubeadmConfigSpec(t.spec.template_.spec); })
        .validate([](const KubeadmConfigTemplate& t, const FieldPath& path, FieldErrors& errors) {
          validateKubeadmConfigSpec(t.spec.template_.spec,
                                    path.child("spec").child("template").child("spec"), errors);
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::kubeadm
