#pragma once

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"

// The karpenter.sh/v1 CRDs' transition rules (x-kubernetes-validations with oldSelf), checked on
// every update between the stored object and the new one, both in stored form.
namespace nodewright::api::karpenter {

// NodePool: spec.template.spec.nodeClassRef group and kind never change.
FieldErrors nodePoolTransitionErrors(const Json& current, const Json& next);

// NodeClaim: spec never changes (self == oldSelf on spec).
FieldErrors nodeClaimTransitionErrors(const Json& current, const Json& next);

}  // namespace nodewright::api::karpenter
