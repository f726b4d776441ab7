#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/core/taint.h"
#include "api/reflect/schema.h"

// The kubeadm configuration embedded in bootstrap.cluster.x-k8s.io/v1beta1 KubeadmConfig and
// KubeadmControlPlane: kubeadm's ClusterConfiguration, InitConfiguration and
// JoinConfiguration in CAPI's v1beta1 shape (kubeadm's own v1beta3/v1beta4 are rendered from
// these by the bootstrap provider).
namespace nodewright::api::kubeadm {

inline constexpr const char* kBootstrapGroup = "bootstrap.cluster.x-k8s.io";
inline constexpr const char* kControlPlaneGroup = "controlplane.cluster.x-k8s.io";
inline constexpr const char* kVersion = "v1beta1";

// An environment variable of a control-plane component (core/v1 EnvVar).
struct EnvVar {
  std::string name;
  std::string value;
  Json valueFrom;  // core/v1 EnvVarSource, kept verbatim
};
const reflect::StructSchema& describe(reflect::Tag<EnvVar>);

// A host path mounted into a static control-plane pod.
struct HostPathMount {
  std::string name;
  std::string hostPath;
  std::string mountPath;
  bool readOnly = false;
  std::string pathType;
};
const reflect::StructSchema& describe(reflect::Tag<HostPathMount>);

struct ControlPlaneComponent {
  std::map<std::string, std::string> extraArgs;
  std::vector<HostPathMount> extraVolumes;
  std::vector<EnvVar> extraEnvs;
};
const reflect::StructSchema& describe(reflect::Tag<ControlPlaneComponent>);

// Go embeds ControlPlaneComponent inline; the three fields are repeated here.
struct APIServer {
  std::map<std::string, std::string> extraArgs;
  std::vector<HostPathMount> extraVolumes;
  std::vector<EnvVar> extraEnvs;
  std::vector<std::string> certSANs;
  std::optional<core::Duration> timeoutForControlPlane;
};
const reflect::StructSchema& describe(reflect::Tag<APIServer>);

struct DNS {
  std::string imageRepository;
  std::string imageTag;
};
const reflect::StructSchema& describe(reflect::Tag<DNS>);

struct LocalEtcd {
  std::string imageRepository;
  std::string imageTag;
  std::string dataDir;
  std::map<std::string, std::string> extraArgs;
  std::vector<EnvVar> extraEnvs;
  std::vector<std::string> serverCertSANs;
  std::vector<std::string> peerCertSANs;
};
const reflect::StructSchema& describe(reflect::Tag<LocalEtcd>);

struct ExternalEtcd {
  std::vector<std::string> endpoints;
  std::string caFile;
  std::string certFile;
  std::string keyFile;
};
const reflect::StructSchema& describe(reflect::Tag<ExternalEtcd>);

struct Etcd {
  std::optional<LocalEtcd> local;
  std::optional<ExternalEtcd> external;
};
const reflect::StructSchema& describe(reflect::Tag<Etcd>);

struct Networking {
  std::string serviceSubnet;
  std::string podSubnet;
  std::string dnsDomain;
};
const reflect::StructSchema& describe(reflect::Tag<Networking>);

struct ClusterConfiguration {
  std::string apiVersion;
  std::string kind;
  Etcd etcd;
  Networking networking;
  std::string kubernetesVersion;
  std::string controlPlaneEndpoint;
  APIServer apiServer;
  ControlPlaneComponent controllerManager;
  ControlPlaneComponent scheduler;
  DNS dns;
  std::string certificatesDir;
  std::string imageRepository;
  std::map<std::string, bool> featureGates;
  std::optional<int32_t> certificateValidityPeriodDays;    // absent: kubeadm's one year
  std::optional<int32_t> caCertificateValidityPeriodDays;  // absent: CAPI's ten years
  std::string encryptionAlgorithm;
  std::string clusterName;
};
const reflect::StructSchema& describe(reflect::Tag<ClusterConfiguration>);

struct APIEndpoint {
  std::string advertiseAddress;
  int32_t bindPort = 0;
};
const reflect::StructSchema& describe(reflect::Tag<APIEndpoint>);

struct NodeRegistrationOptions {
  std::string name;
  std::string criSocket;
  // Absent means kubeadm's default control-plane taint; [] means no taint at all.
  std::optional<std::vector<corev1::Taint>> taints;
  std::map<std::string, std::string> kubeletExtraArgs;
  std::vector<std::string> ignorePreflightErrors;
  std::string imagePullPolicy;
  std::optional<bool> imagePullSerial;
};
const reflect::StructSchema& describe(reflect::Tag<NodeRegistrationOptions>);

struct BootstrapToken {
  std::string token;  // "abcdef.0123456789abcdef"; a credential
  std::string description;
  std::optional<core::Duration> ttl;
  std::optional<core::Time> expires;
  std::vector<std::string> usages;
  std::vector<std::string> groups;
};
const reflect::StructSchema& describe(reflect::Tag<BootstrapToken>);

struct Patches {
  std::string directory;
};
const reflect::StructSchema& describe(reflect::Tag<Patches>);

struct InitConfiguration {
  std::string apiVersion;
  std::string kind;
  std::vector<BootstrapToken> bootstrapTokens;
  NodeRegistrationOptions nodeRegistration;
  APIEndpoint localAPIEndpoint;
  std::vector<std::string> skipPhases;
  std::optional<Patches> patches;
};
const reflect::StructSchema& describe(reflect::Tag<InitConfiguration>);

struct BootstrapTokenDiscovery {
  std::string token;
  std::string apiServerEndpoint;
  std::vector<std::string> caCertHashes;
  bool unsafeSkipCAVerification = false;
};
const reflect::StructSchema& describe(reflect::Tag<BootstrapTokenDiscovery>);

struct KubeConfigCluster {
  std::string server;
  std::string tlsServerName;
  bool insecureSkipTLSVerify = false;
  std::string certificateAuthorityData;  // base64, as Go's []byte
  std::string proxyURL;
};
const reflect::StructSchema& describe(reflect::Tag<KubeConfigCluster>);

struct KubeConfigAuthProvider {
  std::string name;
  std::map<std::string, std::string> config;
};
const reflect::StructSchema& describe(reflect::Tag<KubeConfigAuthProvider>);

struct KubeConfigAuthExecEnv {
  std::string name;
  std::string value;
};
const reflect::StructSchema& describe(reflect::Tag<KubeConfigAuthExecEnv>);

struct KubeConfigAuthExec {
  std::string command;
  std::vector<std::string> args;
  std::vector<KubeConfigAuthExecEnv> env;
  std::string apiVersion;
  bool provideClusterInfo = false;
};
const reflect::StructSchema& describe(reflect::Tag<KubeConfigAuthExec>);

struct KubeConfigUser {
  std::optional<KubeConfigAuthProvider> authProvider;
  std::optional<KubeConfigAuthExec> exec;
};
const reflect::StructSchema& describe(reflect::Tag<KubeConfigUser>);

struct FileDiscoveryKubeConfig {
  std::optional<KubeConfigCluster> cluster;
  KubeConfigUser user;
};
const reflect::StructSchema& describe(reflect::Tag<FileDiscoveryKubeConfig>);

struct FileDiscovery {
  std::string kubeConfigPath;
  std::optional<FileDiscoveryKubeConfig> kubeConfig;
};
const reflect::StructSchema& describe(reflect::Tag<FileDiscovery>);

struct Discovery {
  std::optional<BootstrapTokenDiscovery> bootstrapToken;
  std::optional<FileDiscovery> file;
  std::string tlsBootstrapToken;
  std::optional<core::Duration> timeout;
};
const reflect::StructSchema& describe(reflect::Tag<Discovery>);

struct JoinControlPlane {
  APIEndpoint localAPIEndpoint;
};
const reflect::StructSchema& describe(reflect::Tag<JoinControlPlane>);

struct JoinConfiguration {
  std::string apiVersion;
  std::string kind;
  NodeRegistrationOptions nodeRegistration;
  std::string caCertPath;
  Discovery discovery;
  std::optional<JoinControlPlane> controlPlane;
  std::vector<std::string> skipPhases;
  std::optional<Patches> patches;
};
const reflect::StructSchema& describe(reflect::Tag<JoinConfiguration>);

}  // namespace nodewright::api::kubeadm
