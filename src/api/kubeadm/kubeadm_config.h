#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "api/kubeadm/kubeadm_types.h"

// bootstrap.cluster.x-k8s.io/v1beta1 KubeadmConfig and KubeadmConfigTemplate: what the kubeadm
// bootstrap provider renders into a Machine's bootstrap data (cloud-init or Ignition).
namespace nodewright::api::kubeadm {

inline constexpr const char* kFormatCloudConfig = "cloud-config";
inline constexpr const char* kFormatIgnition = "ignition";

struct SecretFileSource {
  std::string name;
  std::string key;
};
const reflect::StructSchema& describe(reflect::Tag<SecretFileSource>);

struct FileSource {
  SecretFileSource secret;
};
const reflect::StructSchema& describe(reflect::Tag<FileSource>);

struct File {
  std::string path;
  std::string owner;
  std::string permissions;
  std::string encoding;  // base64, gzip, gzip+base64
  bool append = false;
  std::string content;
  std::optional<FileSource> contentFrom;
  std::string contentFormat;  // Raw, Template
};
const reflect::StructSchema& describe(reflect::Tag<File>);

struct SecretPasswdSource {
  std::string name;
  std::string key;
};
const reflect::StructSchema& describe(reflect::Tag<SecretPasswdSource>);

struct PasswdSource {
  SecretPasswdSource secret;
};
const reflect::StructSchema& describe(reflect::Tag<PasswdSource>);

struct User {
  std::string name;
  std::optional<std::string> gecos;
  std::optional<std::string> groups;
  std::optional<std::string> homeDir;
  std::optional<bool> inactive;
  std::optional<std::string> shell;
  std::optional<std::string> passwd;
  std::optional<PasswdSource> passwdFrom;
  std::optional<std::string> primaryGroup;
  std::optional<bool> lockPassword;
  std::optional<std::string> sudo;
  std::vector<std::string> sshAuthorizedKeys;
};
const reflect::StructSchema& describe(reflect::Tag<User>);

struct NTP {
  std::vector<std::string> servers;
  std::optional<bool> enabled;
};
const reflect::StructSchema& describe(reflect::Tag<NTP>);

struct PartitionSpec {
  std::optional<int32_t> percentage;
  std::string partitionType;
};
const reflect::StructSchema& describe(reflect::Tag<PartitionSpec>);

struct Partition {
  std::string device;
  bool layout = false;
  std::optional<bool> overwrite;
  std::optional<std::string> tableType;  // mbr, gpt
  std::vector<PartitionSpec> diskLayout;
};
const reflect::StructSchema& describe(reflect::Tag<Partition>);

struct Filesystem {
  std::string device;
  std::string filesystem;
  std::string label;
  std::optional<std::string> partition;
  std::optional<bool> overwrite;
  std::optional<std::string> replaceFS;
  std::vector<std::string> extraOpts;
};
const reflect::StructSchema& describe(reflect::Tag<Filesystem>);

struct DiskSetup {
  std::vector<Partition> partitions;
  std::vector<Filesystem> filesystems;
};
const reflect::StructSchema& describe(reflect::Tag<DiskSetup>);

struct ContainerLinuxConfig {
  std::string additionalConfig;
  bool strict = false;
};
const reflect::StructSchema& describe(reflect::Tag<ContainerLinuxConfig>);

struct IgnitionSpec {
  std::optional<ContainerLinuxConfig> containerLinuxConfig;
};
const reflect::StructSchema& describe(reflect::Tag<IgnitionSpec>);

struct KubeadmConfigSpec {
  std::optional<ClusterConfiguration> clusterConfiguration;
  std::optional<InitConfiguration> initConfiguration;
  std::optional<JoinConfiguration> joinConfiguration;
  std::vector<File> files;
  std::optional<DiskSetup> diskSetup;
  std::vector<std::vector<std::string>> mounts;
  std::optional<std::vector<std::string>> bootCommands;
  std::vector<std::string> preKubeadmCommands;
  std::vector<std::string> postKubeadmCommands;
  std::vector<User> users;
  std::optional<NTP> ntp;
  std::string format;  // cloud-config (the default when empty) or ignition
  std::optional<int32_t> verbosity;
  bool useExperimentalRetryJoin = false;
  std::optional<IgnitionSpec> ignition;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmConfigSpec>);

// The rules of CAPI's KubeadmConfig webhook, shared with KubeadmConfigTemplate and
// KubeadmControlPlane: file and password sources, unique file paths, the Ignition
// restrictions, partition sizes and the discovery kubeconfig's single auth method. `spec` is
// the path of the KubeadmConfigSpec. nodewright behaves as CAPI with the
// KubeadmBootstrapFormatIgnition feature gate enabled (the Flatcar flavors need it).
void validateKubeadmConfigSpec(const KubeadmConfigSpec& spec, const FieldPath& path,
                               FieldErrors& errors);

// The webhook default: a discovery exec plugin speaks client.authentication.k8s.io/v1.
void defaultKubeadmConfigSpec(KubeadmConfigSpec& spec);

struct KubeadmConfigStatus {
  bool ready = false;
  std::optional<std::string> dataSecretName;
  std::string failureReason;
  std::string failureMessage;
  int64_t observedGeneration = 0;
  std::vector<capi::CapiCondition> conditions;
  Json v1beta2;  // the v1beta2 preview of the status, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmConfigStatus>);

struct KubeadmConfig {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  KubeadmConfigSpec spec;
  KubeadmConfigStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmConfig>);

struct KubeadmConfigTemplateResource {
  capi::TemplateMetadata metadata;
  KubeadmConfigSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmConfigTemplateResource>);

struct KubeadmConfigTemplateSpec {
  KubeadmConfigTemplateResource template_;  // JSON "template"
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmConfigTemplateSpec>);

struct KubeadmConfigTemplate {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  KubeadmConfigTemplateSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<KubeadmConfigTemplate>);

}  // namespace nodewright::api::kubeadm
