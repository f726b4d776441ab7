#pragma once

#include <string_view>

#include "api/conversion/common.h"
#include "api/object.h"
#include "core/error.h"

// Conversion between the seed-era kinds and the v1 kinds on encoded objects, for
// `nodewright convert` and the API server: it finds the kinds in the builtin registry
// (KindInfo::convertsTo) and dispatches to the typed conversions in this directory.
namespace nodewright::api::conversion {

// Decodes a seed-era object (Provisioner, Machine, AWSNodeTemplate) strictly, defaults and
// validates it as `options` say, and converts it to its v1 kind. Fails with the decoding
// errors, or with every field the conversion cannot carry.
Converted<Json> convertToV1Fields(const Json& seedEraObject, const ObjectOptions& options = {});
// The same, with the errors rendered into one Invalid error ("path: message; ...").
core::Result<Json> convertToV1(const Json& seedEraObject, const ObjectOptions& options = {});

// Decoding options for objects read back from v1: strict, but neither defaulted (the result
// must not gain fields the v1 object did not have) nor validated (conversion is structural).
ObjectOptions structuralDecodeOptions();

// Converts a v1 object (NodePool, NodeClaim, EC2NodeClass) to the seed-era kind of
// `targetApiVersion` that converts to it ("karpenter.sh/v1alpha5" for NodePool and NodeClaim,
// "karpenter.k8s.aws/v1alpha1" for EC2NodeClass).
Converted<Json> convertFromV1Fields(const Json& v1Object, std::string_view targetApiVersion,
                                    const ObjectOptions& options = structuralDecodeOptions());
core::Result<Json> convertFromV1(const Json& v1Object, std::string_view targetApiVersion,
                                 const ObjectOptions& options = structuralDecodeOptions());

// "path: message; path: message" for an Invalid core::Error.
core::Error toError(const FieldErrors& errors);

}  // namespace nodewright::api::conversion
