#pragma once

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"

namespace nodewright::api::crd {

// Checks an openAPIV3Schema against the rules kube-apiserver applies to apiextensions.k8s.io/v1
// CRDs (structural schemas), plus list-type and keyword sanity, so a CRD we generate is known to
// be accepted before any API server sees it:
// - every node has a type, unless it is x-kubernetes-int-or-string or deliberately
//   x-kubernetes-preserve-unknown-fields;
// - anyOf/allOf/oneOf/not only restrict values: no type, description, default, nullable or
//   additionalProperties inside them, and whatever they name is also specified outside;
// - properties and additionalProperties only on objects and never both; items on every array;
// - x-kubernetes-list-type map has scalar keys that are required or defaulted, set has scalar
//   items;
// - enum values and defaults have the node's type; required names declared properties;
// - root metadata specifies nothing beyond name and generateName.
// Paths follow the API server's ("properties[spec].items.type"), relative to the schema root.
FieldErrors structuralErrors(const Json& schema);

}  // namespace nodewright::api::crd
