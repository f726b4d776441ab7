#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/reflect/int_or_string.h"
#include "api/reflect/schema.h"

// core/v1 ServiceAccount and Service, modelled as far as a deployment manifest sets them (so the
// embedded API server accepts `kubectl apply` of a real install); the rest is kept in `unknown`.
// Nothing allocates cluster IPs or node ports: the server stores what it is given.
namespace nodewright::api::corev1 {

// A reference to an object in the same namespace by name (imagePullSecrets).
struct LocalObjectReference {
  std::string name;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<LocalObjectReference>);

struct ServiceAccount {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  std::vector<ObjectReference> secrets;
  std::vector<LocalObjectReference> imagePullSecrets;
  std::optional<bool> automountServiceAccountToken;
};
const reflect::StructSchema& describe(reflect::Tag<ServiceAccount>);

struct ServicePort {
  std::string name;
  std::string protocol;  // TCP (default), UDP or SCTP
  std::string appProtocol;
  int32_t port = 0;
  std::optional<IntOrString> targetPort;  // number or a container port's name
  int32_t nodePort = 0;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<ServicePort>);

struct ServiceSpec {
  std::vector<ServicePort> ports;
  std::map<std::string, std::string> selector;
  std::string clusterIP;
  std::vector<std::string> clusterIPs;
  std::string type;  // ClusterIP (default), NodePort, LoadBalancer or ExternalName
  std::string externalName;
  std::string sessionAffinity;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<ServiceSpec>);

struct ServiceStatus {
  Json loadBalancer;
  std::vector<Condition> conditions;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<ServiceStatus>);

struct Service {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  ServiceSpec spec;
  ServiceStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Service>);

}  // namespace nodewright::api::corev1
