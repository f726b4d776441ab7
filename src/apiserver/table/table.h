#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

#include "api/reflect/json.h"
#include "apiserver/resources.h"
#include "core/error.h"
#include "core/time.h"

// Server-side tables: the meta.k8s.io Table kube-apiserver returns for
// "Accept: application/json;as=Table;v=v1;g=meta.k8s.io", which is what kubectl get prints.
//
// Columns and cells follow kube-apiserver: built-in kinds use its printers (Pod, Node,
// Namespace, Event, Secret, ConfigMap, Lease, Deployment, ReplicaSet, DaemonSet,
// PodDisruptionBudget; CustomResourceDefinition gets NAME / CREATED AT); custom resources use
// the apiextensions table convertor over the Resource's printer columns (NAME AGE without any);
// other kinds fall back to their printer columns the same way. Wide (priority 1) cells are always
// present; kubectl hides them without -o wide. Ages are computed against `now`.
namespace nodewright::apiserver {

// What each row's "object" carries (the includeObject query parameter).
enum class IncludeObject {
  None,      // null
  Metadata,  // a meta.k8s.io PartialObjectMetadata (the default)
  Object,    // the whole object
};

// "" reads as Metadata. Anything else but "None", "Metadata" or "Object" is Invalid with
// kube-apiserver's message ("Unable to convert to Table as requested: includeObject: Invalid
// value: ..."), which it returns as 400 Bad Request.
core::Result<IncludeObject> parseIncludeObject(std::string_view value);

struct TableOptions {
  IncludeObject includeObject = IncludeObject::Metadata;
  // The Table's group version as the Accept header asked: meta.k8s.io/v1 or meta.k8s.io/v1beta1.
  std::string apiVersion = "meta.k8s.io/v1";
};

// The list metadata a Table of a list carries over.
struct TableListMeta {
  std::string resourceVersion;
  std::string continueToken;
  std::optional<int64_t> remainingItemCount;
};

// A Table of the items of a list, in order.
core::Result<api::Json> listTable(const Resource& resource, std::span<const api::Json> items,
                                  const TableListMeta& list, core::TimePoint now,
                                  const TableOptions& options = {});

// A Table of one object (GET of a single name); its resourceVersion is the object's.
core::Result<api::Json> objectTable(const Resource& resource, const api::Json& object,
                                    core::TimePoint now, const TableOptions& options = {});

}  // namespace nodewright::apiserver
