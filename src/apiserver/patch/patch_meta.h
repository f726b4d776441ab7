#pragma once

#include <map>
#include <string>
#include <string_view>

// The upstream patchStrategy/patchMergeKey struct tags of the built-in kinds we serve, as data:
// strategic merge patch needs them, and server-side apply falls back on them where our OpenAPI
// schemas carry no x-kubernetes-list-type. Only fields whose behaviour differs from the default
// (maps merge, lists replace) and the structs on the way to them are described.
namespace nodewright::apiserver::patch {

struct TypeMeta;

struct FieldMeta {
  // patchStrategy "merge" on a list: items are merged by mergeKey, or unioned when it is empty
  // (a list of primitives such as metadata.finalizers).
  bool mergeList = false;
  std::string mergeKey;
  // The struct type of the field, or of a list's items; nullptr when nothing below differs.
  const TypeMeta* type = nullptr;
};

struct TypeMeta {
  std::map<std::string, FieldMeta, std::less<>> fields;

  // nullptr for fields without special behaviour (unknown to us, or plain maps and scalars).
  const FieldMeta* field(std::string_view name) const;
};

// The whole-object type of a built-in kind ("" for the core group), or nullptr for kinds that
// kube-apiserver serves without strategic merge patch (custom resources).
const TypeMeta* builtinKindMeta(std::string_view group, std::string_view kind);

// The type of any other kind (custom resources): only its metadata.finalizers and
// metadata.ownerReferences are known, as server-side apply treats them for every kind.
const TypeMeta& genericKindMeta();

}  // namespace nodewright::apiserver::patch
