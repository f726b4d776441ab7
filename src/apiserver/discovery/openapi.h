#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "apiserver/resources.h"
#include "core/error.h"

// The OpenAPI documents of the API server, built from the served resources' schemas.
//
// kubectl 1.32 reads OpenAPI v3 for nearly everything: `explain` renders a group version's
// document, and `apply`/`create` look up fieldValidation on the kind's PATCH operation to learn
// that the server validates fields itself (they then send fieldValidation=Strict and skip
// client-side validation). OpenAPI v2, always requested as protobuf, is still read in two
// places: validating a `kind: List` manifest (a List has no v3 document; the validator skips
// kinds the v2 document does not define, so an empty document lets the server validate each
// item) and computing a client-side apply patch for a kind whose v3 PATCH operation does not
// accept strategic merge patches (kubectl then uses the merge keys compiled into it for
// built-in kinds and JSON merge patch for others). A failing v2 request breaks the first case,
// so /openapi/v2 answers protobuf requests with openApiV2Protobuf().
namespace nodewright::apiserver::discovery {

// What kubectl puts in Accept for /openapi/v2.
inline constexpr std::string_view kOpenApiV2ProtobufAccept =
    "application/com.github.proto-openapi.spec.v2@v1.0+protobuf";
// The Content-Type to answer with: client-go parses it, and Go's MIME parser rejects the "@"
// of the Accept form (kubectl then fails with "mime: unexpected content after media subtype").
inline constexpr std::string_view kOpenApiV2ProtobufContentType =
    "application/com.github.proto-openapi.spec.v2.v1.0+protobuf";

// The index key of a group version: "api/v1" or "apis/karpenter.sh/v1".
std::string openApiV3Path(std::string_view group, std::string_view version);

// The OpenAPI 3.0 document of one group version: components.schemas named like upstream
// ("io.k8s.api.core.v1.Pod", "sh.karpenter.v1.NodePool") with x-kubernetes-group-version-kind,
// and paths whose operations carry x-kubernetes-action, x-kubernetes-group-version-kind and the
// query parameters the server accepts. NotFound when the group version serves nothing.
core::Result<api::Json> openApiV3Document(const std::vector<ResourcePtr>& resources,
                                          std::string_view group, std::string_view version);

// The same, addressed by index key ("apis/karpenter.sh/v1"), i.e. the request path after
// "/openapi/v3/". NotFound for any other key.
core::Result<api::Json> openApiV3DocumentAt(const std::vector<ResourcePtr>& resources,
                                            std::string_view path);

// Upper-case hex digest of a document; equal documents hash equally across runs. Used in
// serverRelativeURL so clients may cache a document for as long as its URL stays the same.
std::string documentHash(const api::Json& document);

// GET /openapi/v3: {"paths": {"api/v1": {"serverRelativeURL": "/openapi/v3/api/v1?hash=..."}}}.
// Builds every document to hash it: callers should cache it per resource snapshot.
api::Json openApiV3Index(const std::vector<ResourcePtr>& resources);

// GET /openapi/v2 (any Accept naming protobuf): a gnostic openapi_v2.Document with swagger,
// info, and empty paths and definitions, protobuf-encoded.
std::string openApiV2Protobuf();

// GET /openapi/v2 as JSON: the same document.
api::Json openApiV2Document();

}  // namespace nodewright::apiserver::discovery
