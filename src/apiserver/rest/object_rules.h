#pragma once

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "apiserver/resources.h"

// Rules kube-apiserver applies to every object beyond its kind's schema.
namespace nodewright::apiserver::rest::rules {

// metadata.name (DNS-1123 subdomain, or label for namespaces), label keys and values.
api::FieldErrors validateObjectMeta(const Resource& resource, const api::Json& object);

// Fields that may not change once set (workload selectors), and the transition rules a kind's
// schema gives an update (NodePool: static and dynamic do not turn into each other).
api::FieldErrors immutableFieldErrors(const Resource& resource, const api::Json& current,
                                      const api::Json& next);

// A custom resource as a CRD-backed API server stores it: the fields as sent (durations,
// quantities and explicit zero values untouched), unknown fields pruned by the schema, and the
// defaults of `defaulted` (the model's encoding of the same object) added where absent.
api::Json customResourceForm(const api::Json& sent, const api::Json& defaulted,
                             const api::Json& schema);

}  // namespace nodewright::apiserver::rest::rules
