#pragma once

#include <string_view>

#include "apiserver/protobuf/descriptor.h"

// The message tables, defined in *_messages.cc from the upstream generated.proto files
// (field numbers) and Go types (JSON names, struct order, pointers and omitempty).
namespace nodewright::apiserver::protobuf {

// k8s.io/apimachinery/pkg/apis/meta/v1
extern const MessageDescriptor kObjectMeta;
extern const MessageDescriptor kLabelSelector;
extern const MessageDescriptor kDeleteOptions;
extern const MessageDescriptor kCondition;

// k8s.io/api/core/v1
extern const MessageDescriptor kNamespace;
extern const MessageDescriptor kConfigMap;
extern const MessageDescriptor kSecret;
extern const MessageDescriptor kServiceAccount;
extern const MessageDescriptor kLocalObjectReference;
extern const MessageDescriptor kPod;
extern const MessageDescriptor kPodTemplateSpec;
extern const MessageDescriptor kPodSpec;
extern const MessageDescriptor kContainer;
extern const MessageDescriptor kResourceRequirements;
extern const MessageDescriptor kPodSecurityContext;

// k8s.io/api/apps/v1
extern const MessageDescriptor kDeployment;

// k8s.io/api/policy/v1
extern const MessageDescriptor kEviction;
extern const MessageDescriptor kPodDisruptionBudget;

// The top-level message of a kind, or null when this decoder does not know it.
// DeleteOptions is accepted under any apiVersion, as every API group registers it.
const MessageDescriptor* findKind(std::string_view apiVersion, std::string_view kind);

}  // namespace nodewright::apiserver::protobuf
