#include "api/kubeadm/kubeadm_types.h"

#include <regex>

#include "api/codec.h"

// Limits are CAPI v1beta1's CRD limits (MaxLength, MaxItems, enums); the webhook rules that
// span fields live in kubeadm_config.cc.
namespace nodewright::api::kubeadm {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<EnvVar>) {
  static const StructSchema s =
      StructBuilder<EnvVar>("EnvVar", "An environment variable of a control-plane component.")
          .field<&EnvVar::name>("name", "Name of the variable.")
          .required()
          .field<&EnvVar::value>("value", "Value of the variable.")
          .field<&EnvVar::valueFrom>("valueFrom",
                                     "Where the value comes from (core/v1 EnvVarSource).")
          .build();
  return s;
}

const StructSchema& describe(Tag<HostPathMount>) {
  static const StructSchema s =
      StructBuilder<HostPathMount>("HostPathMount",
                                   "A host path mounted into a static control-plane pod.")
          .field<&HostPathMount::name>("name", "Name of the volume in the pod.")
          .required()
          .maxLength(512)
          .field<&HostPathMount::hostPath>("hostPath", "Path on the host.")
          .required()
          .maxLength(512)
          .field<&HostPathMount::mountPath>("mountPath", "Path inside the pod.")
          .required()
          .maxLength(512)
          .field<&HostPathMount::readOnly>("readOnly", "Mounts the volume read-only.")
          .field<&HostPathMount::pathType>("pathType",
                                           "Type of the host path (core/v1 HostPathType).")
          .build();
  return s;
}

const StructSchema& describe(Tag<ControlPlaneComponent>) {
  static const StructSchema s =
      StructBuilder<ControlPlaneComponent>("ControlPlaneComponent",
                                           "Settings of a static control-plane component.")
          .field<&ControlPlaneComponent::extraArgs>("extraArgs",
                                                    "Flags passed to the component (name without "
                                                    "leading dashes).")
          .field<&ControlPlaneComponent::extraVolumes>("extraVolumes",
                                                       "Host paths mounted into the component.")
          .maxItems(100)
          .field<&ControlPlaneComponent::extraEnvs>("extraEnvs",
                                                    "Environment variables of the component.")
          .maxItems(100)
          .build();
  return s;
}

const StructSchema& describe(Tag<APIServer>) {
  static const StructSchema s =
      StructBuilder<APIServer>("APIServer", "Settings of the kube-apiserver static pod.")
          .field<&APIServer::extraArgs>("extraArgs", "Flags passed to kube-apiserver.")
          .field<&APIServer::extraVolumes>("extraVolumes", "Host paths mounted into the pod.")
          .maxItems(100)
          .field<&APIServer::extraEnvs>("extraEnvs", "Environment variables of the pod.")
          .maxItems(100)
          .field<&APIServer::certSANs>("certSANs",
                                       "Extra subject alternative names of the serving "
                                       "certificate.")
          .maxItems(100)
          .maxLength(253)
          .field<&APIServer::timeoutForControlPlane>(
              "timeoutForControlPlane", "How long kubeadm waits for the control plane to come up.")
          .build();
  return s;
}

const StructSchema& describe(Tag<DNS>) {
  static const StructSchema s =
      StructBuilder<DNS>("DNS", "The cluster DNS add-on image.")
          .field<&DNS::imageRepository>("imageRepository", "Registry to pull the image from.")
          .maxLength(512)
          .field<&DNS::imageTag>("imageTag", "Tag of the image.")
          .maxLength(256)
          .build();
  return s;
}

const StructSchema& describe(Tag<LocalEtcd>) {
  static const StructSchema s =
      StructBuilder<LocalEtcd>("LocalEtcd",
                               "An etcd member kubeadm runs on each control-plane "
                               "node.")
          .field<&LocalEtcd::imageRepository>("imageRepository", "Registry of the etcd image.")
          .maxLength(512)
          .field<&LocalEtcd::imageTag>("imageTag", "Tag of the etcd image.")
          .maxLength(256)
          .field<&LocalEtcd::dataDir>("dataDir", "Directory etcd keeps its data in.")
          .maxLength(512)
          .field<&LocalEtcd::extraArgs>("extraArgs", "Flags passed to etcd.")
          .field<&LocalEtcd::extraEnvs>("extraEnvs", "Environment variables of etcd.")
          .maxItems(100)
          .field<&LocalEtcd::serverCertSANs>("serverCertSANs",
                                             "Extra names of the etcd serving certificate.")
          .maxItems(100)
          .maxLength(253)
          .field<&LocalEtcd::peerCertSANs>("peerCertSANs",
                                           "Extra names of the etcd peer certificate.")
          .maxItems(100)
          .maxLength(253)
          .build();
  return s;
}

const StructSchema& describe(Tag<ExternalEtcd>) {
  static const StructSchema s =
      StructBuilder<ExternalEtcd>("ExternalEtcd", "An etcd cluster managed outside kubeadm.")
          .field<&ExternalEtcd::endpoints>("endpoints", "Endpoints of the etcd members.")
          .required()
          .maxItems(50)
          .maxLength(512)
          .field<&ExternalEtcd::caFile>("caFile",
                                        "CA certificate that signs etcd's serving "
                                        "certificates.")
          .required()
          .maxLength(512)
          .field<&ExternalEtcd::certFile>("certFile", "Client certificate for etcd.")
          .required()
          .maxLength(512)
          .field<&ExternalEtcd::keyFile>("keyFile", "Key of the client certificate.")
          .required()
          .maxLength(512)
          .build();
  return s;
}

const StructSchema& describe(Tag<Etcd>) {
  static const StructSchema s =
      StructBuilder<Etcd>("Etcd", "Where the cluster's etcd runs.")
          .field<&Etcd::local>("local", "etcd run by kubeadm on the control-plane nodes.")
          .field<&Etcd::external>("external", "An etcd cluster run elsewhere.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Networking>) {
  static const StructSchema s =
      StructBuilder<Networking>("Networking", "Cluster network ranges and DNS domain.")
          .field<&Networking::serviceSubnet>("serviceSubnet", "Range of Service IPs.")
          .maxLength(1024)
          .field<&Networking::podSubnet>("podSubnet", "Range of pod IPs.")
          .maxLength(1024)
          .field<&Networking::dnsDomain>("dnsDomain", "DNS domain of Services.")
          .maxLength(253)
          .build();
  return s;
}

const StructSchema& describe(Tag<ClusterConfiguration>) {
  static const StructSchema s =
      StructBuilder<ClusterConfiguration>("ClusterConfiguration", "Cluster-wide kubeadm settings.")
          .field<&ClusterConfiguration::apiVersion>("apiVersion", "Ignored; set by the provider.")
          .field<&ClusterConfiguration::kind>("kind", "Ignored; set by the provider.")
          .field<&ClusterConfiguration::etcd>("etcd", "Where etcd runs.")
          .field<&ClusterConfiguration::networking>("networking", "Network ranges of the cluster.")
          .field<&ClusterConfiguration::kubernetesVersion>(
              "kubernetesVersion", "Kubernetes version; the Machine's version takes precedence.")
          .maxLength(256)
          .field<&ClusterConfiguration::controlPlaneEndpoint>(
              "controlPlaneEndpoint", "Stable address of the control plane; set by the provider.")
          .maxLength(512)
          .field<&ClusterConfiguration::apiServer>("apiServer", "kube-apiserver settings.")
          .field<&ClusterConfiguration::controllerManager>("controllerManager",
                                                           "kube-controller-manager settings.")
          .field<&ClusterConfiguration::scheduler>("scheduler", "kube-scheduler settings.")
          .field<&ClusterConfiguration::dns>("dns", "Cluster DNS add-on settings.")
          .field<&ClusterConfiguration::certificatesDir>("certificatesDir",
                                                         "Where certificates are stored.")
          .maxLength(512)
          .field<&ClusterConfiguration::imageRepository>(
              "imageRepository", "Registry the control-plane images are pulled from.")
          .maxLength(512)
          .field<&ClusterConfiguration::featureGates>("featureGates", "kubeadm feature gates.")
          .field<&ClusterConfiguration::certificateValidityPeriodDays>(
              "certificateValidityPeriodDays", "Days the certificates kubeadm signs are valid.")
          .min(1)
          .max(1095)
          .field<&ClusterConfiguration::caCertificateValidityPeriodDays>(
              "caCertificateValidityPeriodDays", "Days the cluster CA certificates are valid.")
          .min(1)
          .max(36500)
          .field<&ClusterConfiguration::encryptionAlgorithm>(
              "encryptionAlgorithm", "Key algorithm of the certificates kubeadm creates.")
          .enums({"ECDSA-P256", "ECDSA-P384", "RSA-2048", "RSA-3072", "RSA-4096"})
          .field<&ClusterConfiguration::clusterName>("clusterName", "Name of the cluster.")
          .maxLength(63)
          .build();
  return s;
}

const StructSchema& describe(Tag<APIEndpoint>) {
  static const StructSchema s =
      StructBuilder<APIEndpoint>("APIEndpoint", "Where a node's API server listens.")
          .field<&APIEndpoint::advertiseAddress>("advertiseAddress",
                                                 "IP address the API server advertises.")
          .maxLength(39)
          .field<&APIEndpoint::bindPort>("bindPort", "Port the API server binds to.")
          .build();
  return s;
}

const StructSchema& describe(Tag<NodeRegistrationOptions>) {
  static const StructSchema s =
      StructBuilder<NodeRegistrationOptions>("NodeRegistrationOptions",
                                             "How the node registers with the cluster.")
          .field<&NodeRegistrationOptions::name>("name", "Name of the Node object.")
          .maxLength(253)
          .field<&NodeRegistrationOptions::criSocket>("criSocket",
                                                      "Socket of the container runtime.")
          .maxLength(512)
          .field<&NodeRegistrationOptions::taints>(
              "taints",
              "Taints the Node registers with; [] means none, absent means kubeadm's "
              "default.")
          .maxItems(100)
          .field<&NodeRegistrationOptions::kubeletExtraArgs>("kubeletExtraArgs",
                                                             "Flags passed to the kubelet.")
          .field<&NodeRegistrationOptions::ignorePreflightErrors>(
              "ignorePreflightErrors", "Preflight checks whose errors are only warnings.")
          .maxItems(50)
          .maxLength(512)
          .field<&NodeRegistrationOptions::imagePullPolicy>(
              "imagePullPolicy", "When kubeadm pulls images during init and join.")
          .enums({"Always", "IfNotPresent", "Never"})
          .field<&NodeRegistrationOptions::imagePullSerial>(
              "imagePullSerial", "Pull images one at a time instead of in parallel.")
          .build();
  return s;
}

const StructSchema& describe(Tag<BootstrapToken>) {
  static const StructSchema s =
      StructBuilder<BootstrapToken>("BootstrapToken", "A bootstrap token kubeadm init creates.")
          .field<&BootstrapToken::token>("token", "The token, \"[a-z0-9]{6}.[a-z0-9]{16}\".")
          .required()
          .sensitive()
          .field<&BootstrapToken::description>("description", "What the token is for.")
          .maxLength(512)
          .field<&BootstrapToken::ttl>("ttl", "Lifetime of the token; defaults to 24h.")
          .field<&BootstrapToken::expires>("expires", "When the token expires; excludes ttl.")
          .field<&BootstrapToken::usages>("usages", "What the token may be used for.")
          .maxItems(100)
          .maxLength(256)
          .field<&BootstrapToken::groups>("groups", "Extra groups the token authenticates as.")
          .maxItems(100)
          .maxLength(256)
          .validate([](const BootstrapToken& t, const FieldPath& path, FieldErrors& errors) {
            // Go decodes the token into its two halves and fails on any other shape; the
            // message never echoes the value, which is a credential.
            static const std::regex form(R"(^[a-z0-9]{6}\.[a-z0-9]{16}$)");
            if (!t.token.empty() && !std::regex_match(t.token, form)) {
              errors.push_back({path.child("token").str(),
                                fielderr::invalid(Json("<redacted>"),
                                                  "the bootstrap token was not of the form "
                                                  "\"^([a-z0-9]{6})\\.([a-z0-9]{16})$\"")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Patches>) {
  static const StructSchema s =
      StructBuilder<Patches>("Patches", "Patches kubeadm applies to its generated manifests.")
          .field<&Patches::directory>("directory", "Directory holding the patch files.")
          .maxLength(512)
          .build();
  return s;
}

const StructSchema& describe(Tag<InitConfiguration>) {
  static const StructSchema s =
      StructBuilder<InitConfiguration>("InitConfiguration",
                                       "Settings of kubeadm init on the first control-plane "
                                       "node.")
          .field<&InitConfiguration::apiVersion>("apiVersion", "Ignored; set by the provider.")
          .field<&InitConfiguration::kind>("kind", "Ignored; set by the provider.")
          .field<&InitConfiguration::bootstrapTokens>("bootstrapTokens",
                                                      "Bootstrap tokens created at init.")
          .maxItems(100)
          .field<&InitConfiguration::nodeRegistration>("nodeRegistration",
                                                       "How the node registers.")
          .field<&InitConfiguration::localAPIEndpoint>("localAPIEndpoint",
                                                       "Where this node's API server listens.")
          .field<&InitConfiguration::skipPhases>("skipPhases", "kubeadm init phases to skip.")
          .maxItems(50)
          .maxLength(256)
          .field<&InitConfiguration::patches>("patches", "Patches to the generated manifests.")
          .build();
  return s;
}

const StructSchema& describe(Tag<BootstrapTokenDiscovery>) {
  static const StructSchema s =
      StructBuilder<BootstrapTokenDiscovery>("BootstrapTokenDiscovery",
                                             "Discovery of the cluster with a bootstrap token.")
          .field<&BootstrapTokenDiscovery::token>("token",
                                                  "Token used to validate the cluster "
                                                  "information.")
          .sensitive()
          .maxLength(512)
          .field<&BootstrapTokenDiscovery::apiServerEndpoint>(
              "apiServerEndpoint", "API server the cluster information is fetched from.")
          .maxLength(512)
          .field<&BootstrapTokenDiscovery::caCertHashes>(
              "caCertHashes", "Hashes of the CA public keys the node trusts.")
          .maxItems(100)
          .maxLength(512)
          .field<&BootstrapTokenDiscovery::unsafeSkipCAVerification>(
              "unsafeSkipCAVerification", "Trusts the cluster without pinning its CA.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeConfigCluster>) {
  static const StructSchema s =
      StructBuilder<KubeConfigCluster>("KubeConfigCluster",
                                       "The cluster of a discovery kubeconfig.")
          .field<&KubeConfigCluster::server>("server", "Address of the API server.")
          .maxLength(512)
          .field<&KubeConfigCluster::tlsServerName>("tlsServerName",
                                                    "Server name checked in its certificate.")
          .maxLength(512)
          .field<&KubeConfigCluster::insecureSkipTLSVerify>(
              "insecureSkipTLSVerify", "Skips verifying the server's certificate.")
          .field<&KubeConfigCluster::certificateAuthorityData>(
              "certificateAuthorityData", "PEM CA certificates, base64-encoded.")
          .format("byte")
          .maxLength(51200)
          .field<&KubeConfigCluster::proxyURL>("proxyURL", "Proxy for requests to the server.")
          .maxLength(512)
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeConfigAuthProvider>) {
  static const StructSchema s =
      StructBuilder<KubeConfigAuthProvider>("KubeConfigAuthProvider",
                                            "A client authentication plugin.")
          .field<&KubeConfigAuthProvider::name>("name", "Name of the plugin.")
          .required()
          .maxLength(256)
          .field<&KubeConfigAuthProvider::config>("config", "Settings of the plugin.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeConfigAuthExecEnv>) {
  static const StructSchema s =
      StructBuilder<KubeConfigAuthExecEnv>("KubeConfigAuthExecEnv",
                                           "An environment variable of a credential command.")
          .field<&KubeConfigAuthExecEnv::name>("name", "Name of the variable.")
          .required()
          .maxLength(512)
          .field<&KubeConfigAuthExecEnv::value>("value", "Value of the variable.")
          .required()
          .maxLength(512)
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeConfigAuthExec>) {
  static const StructSchema s =
      StructBuilder<KubeConfigAuthExec>("KubeConfigAuthExec",
                                        "A command that prints client credentials.")
          .field<&KubeConfigAuthExec::command>("command", "The command to run.")
          .required()
          .maxLength(1024)
          .field<&KubeConfigAuthExec::args>("args", "Arguments of the command.")
          .maxItems(100)
          .maxLength(512)
          .field<&KubeConfigAuthExec::env>("env", "Extra environment of the command.")
          .maxItems(100)
          .field<&KubeConfigAuthExec::apiVersion>(
              "apiVersion", "Version of the ExecCredential the command prints.")
          .maxLength(512)
          .field<&KubeConfigAuthExec::provideClusterInfo>(
              "provideClusterInfo", "Passes the cluster's details to the command.")
          .build();
  return s;
}

const StructSchema& describe(Tag<KubeConfigUser>) {
  static const StructSchema s =
      StructBuilder<KubeConfigUser>("KubeConfigUser", "How a discovery kubeconfig authenticates.")
          .field<&KubeConfigUser::authProvider>("authProvider", "A client authentication plugin.")
          .field<&KubeConfigUser::exec>("exec", "A credential command.")
          .build();
  return s;
}

const StructSchema& describe(Tag<FileDiscoveryKubeConfig>) {
  static const StructSchema s =
      StructBuilder<FileDiscoveryKubeConfig>("FileDiscoveryKubeConfig",
                                             "A kubeconfig the bootstrap provider writes for "
                                             "file discovery.")
          .field<&FileDiscoveryKubeConfig::cluster>(
              "cluster", "The cluster; defaults to the workload cluster's endpoint and CA.")
          .field<&FileDiscoveryKubeConfig::user>("user", "How the node authenticates.")
          .required()
          .build();
  return s;
}

const StructSchema& describe(Tag<FileDiscovery>) {
  static const StructSchema s =
      StructBuilder<FileDiscovery>("FileDiscovery",
                                   "Discovery of the cluster from a kubeconfig "
                                   "file.")
          .field<&FileDiscovery::kubeConfigPath>("kubeConfigPath",
                                                 "Path or URL of the kubeconfig file.")
          .required()
          .maxLength(512)
          .field<&FileDiscovery::kubeConfig>("kubeConfig",
                                             "Contents of the kubeconfig file to write.")
          .build();
  return s;
}

const StructSchema& describe(Tag<Discovery>) {
  static const StructSchema s =
      StructBuilder<Discovery>("Discovery", "How a joining node finds and trusts the cluster.")
          .field<&Discovery::bootstrapToken>("bootstrapToken", "Discovery with a bootstrap token.")
          .field<&Discovery::file>("file", "Discovery from a kubeconfig file.")
          .field<&Discovery::tlsBootstrapToken>(
              "tlsBootstrapToken", "Token for TLS bootstrapping; defaults to the discovery token.")
          .sensitive()
          .maxLength(512)
          .field<&Discovery::timeout>("timeout", "How long discovery may take.")
          .build();
  return s;
}

const StructSchema& describe(Tag<JoinControlPlane>) {
  static const StructSchema s =
      StructBuilder<JoinControlPlane>("JoinControlPlane",
                                      "Makes a joining node another control-plane instance.")
          .field<&JoinControlPlane::localAPIEndpoint>("localAPIEndpoint",
                                                      "Where this node's API server listens.")
          .build();
  return s;
}

const StructSchema& describe(Tag<JoinConfiguration>) {
  static const StructSchema s =
      StructBuilder<JoinConfiguration>("JoinConfiguration", "Settings of kubeadm join.")
          .field<&JoinConfiguration::apiVersion>("apiVersion", "Ignored; set by the provider.")
          .field<&JoinConfiguration::kind>("kind", "Ignored; set by the provider.")
          .field<&JoinConfiguration::nodeRegistration>("nodeRegistration",
                                                       "How the node registers.")
          .field<&JoinConfiguration::caCertPath>("caCertPath",
                                                 "Where the cluster CA is written on the node.")
          .maxLength(512)
          .field<&JoinConfiguration::discovery>("discovery",
                                                "How the node finds and trusts the cluster.")
          .field<&JoinConfiguration::controlPlane>(
              "controlPlane", "Set on control-plane nodes joining an existing control plane.")
          .field<&JoinConfiguration::skipPhases>("skipPhases", "kubeadm join phases to skip.")
          .maxItems(50)
          .maxLength(256)
          .field<&JoinConfiguration::patches>("patches", "Patches to the generated manifests.")
          .build();
  return s;
}

}  // namespace nodewright::api::kubeadm
