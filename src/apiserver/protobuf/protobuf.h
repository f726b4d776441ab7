#pragma once

#include <string_view>

#include "api/reflect/json.h"
#include "core/error.h"

// Request bodies in Kubernetes' protobuf encoding, which client-go (so kubectl's typed
// commands: create namespace|configmap|secret|deployment|pdb, drain --disable-eviction) sends
// for built-in kinds. They are turned into the JSON the rest of the server reads.
namespace nodewright::apiserver::protobuf {

inline constexpr std::string_view kMediaType = "application/vnd.kubernetes.protobuf";

// Decodes a body: the magic "k8s\0", then a runtime.Unknown {typeMeta = 1 {apiVersion = 1,
// kind = 2}, raw = 2, contentEncoding = 3, contentType = 4} whose raw is the object. Returns
// the object as kube-apiserver would write it in JSON, "kind" and "apiVersion" first.
// Kinds: v1 Namespace, ConfigMap, Secret, ServiceAccount, Pod; apps/v1 Deployment; policy/v1
// Eviction, PodDisruptionBudget; DeleteOptions under any apiVersion.
// Errors (Invalid): a missing magic, malformed wire data, a compressed envelope, no kind, or a
// kind not listed above (named in the message).
core::Result<api::Json> protobufToJson(std::string_view body);

}  // namespace nodewright::apiserver::protobuf
