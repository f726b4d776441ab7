#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "apiserver/errors.h"
#include "apiserver/rest/objects.h"
#include "http/server.h"

// Query parameters read as apimachinery's parameter codec reads them (url.Values converted by
// k8s.io/apimachinery/pkg/runtime/conversion.go and the generated url.Values conversions of
// pkg/apis/meta/v1/zz_generated.conversion.go), then validated as kube-apiserver's handlers do.
namespace nodewright::apiserver::rest {

// The first value of a repeated parameter, as url.Values.Get and Convert_Slice_string_To_string
// take it; nullopt when the parameter is absent.
std::optional<std::string> firstParam(const http::Request& request, std::string_view name);

// runtime.Convert_Slice_string_To_bool: "0" and "false" in any case are false; anything else,
// the empty value included, is true.
bool queryBool(std::string_view value);
// Absent: nullopt (Convert_Slice_string_To_Pointer_bool leaves the pointer nil).
std::optional<bool> boolParam(const http::Request& request, std::string_view name);

// strconv.ParseInt(value, 10, 64) with Go's error text, e.g.
// `strconv.ParseInt: parsing "abc": invalid syntax`.
ApiResult<int64_t> parseInt64(std::string_view value);
// runtime.Convert_Slice_string_To_Pointer_int64: absent is nullopt, a bad value a 400.
ApiResult<std::optional<int64_t>> int64Param(const http::Request& request, std::string_view name);

// metainternalversion.ListOptions after decoding, SetListOptionsDefaults and
// ValidateListOptions (apimachinery pkg/apis/meta/internalversion/{defaults,validation}).
struct ListOptions {
  bool watch = false;
  bool allowWatchBookmarks = false;
  std::string resourceVersion;
  std::string resourceVersionMatch;  // "", "NotOlderThan" or "Exact"
  std::optional<int64_t> timeoutSeconds;
  int64_t limit = 0;  // <= 0: no limit
  std::string continueToken;
  std::optional<bool> sendInitialEvents;
};
// A bad number is a 400 (BadRequest); a rule broken a 422 on ListOptions.meta.k8s.io, as
// apiserver's handlers/get.go listOpts answers.
ApiResult<ListOptions> listOptions(const http::Request& request);

// metav1 validation.ValidateFieldManager: at most 128 bytes, printable characters only.
api::FieldErrors validateFieldManager(std::string_view fieldManager);
// Create/Update/PatchOptions checks shared by the write verbs (fieldManager, dryRun,
// fieldValidation), as validation.Validate{Create,Update,Patch}Options words them.
// `optionsKind` is "CreateOptions", "UpdateOptions" or "PatchOptions".
std::optional<ApiError> checkWriteQuery(const http::Request& request,
                                        std::string_view optionsKind);

// 422 Invalid on a meta.k8s.io options kind ("ListOptions.meta.k8s.io \"\" is invalid: ...").
ApiError invalidOptions(std::string_view optionsKind, const api::FieldErrors& causes);

}  // namespace nodewright::apiserver::rest
