#pragma once

#include "api/reflect/json.h"
#include "core/error.h"

// RFC 7386 JSON Merge Patch (application/merge-patch+json): the only patch type kube-apiserver
// accepts for custom resources besides JSON patch and apply.
namespace nodewright::apiserver::patch {

// Objects merge recursively, a null member deletes, anything else (lists included) replaces.
// A patch that is not an object replaces the whole document. Existing keys keep their place,
// new ones are appended. Never fails today; Result keeps the engines interchangeable.
core::Result<api::Json> applyMergePatch(const api::Json& original, const api::Json& patch);

}  // namespace nodewright::apiserver::patch
