#pragma once

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "apiserver/resources.h"

// Checks a CRD-backed API server makes against the structural schema and the CEL rules that a
// typed model cannot see on its own.
namespace nodewright::apiserver::rest::rules {

// Enum fields sent as an explicit empty string. A model reads "" as "not set" (and may default
// it); kube-apiserver validates the value as sent, and "" is in no Karpenter enum.
api::FieldErrors explicitEmptyEnumErrors(const api::Json& sent, const api::Json& schema);

// The kind's transition rules (x-kubernetes-validations using oldSelf; today the karpenter.sh
// kinds') on an update, between the stored object and the canonical form of the new one.
api::FieldErrors transitionErrors(const Resource& resource, const api::Json& current,
                                  const api::Json& next);

}  // namespace nodewright::apiserver::rest::rules
