#pragma once

#include <string>
#include <vector>

#include "api/meta.h"
#include "api/reflect/schema.h"

// core/v1 Namespace.
namespace nodewright::api::corev1 {

struct NamespaceSpec {
  std::vector<std::string> finalizers;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<NamespaceSpec>);

struct NamespaceStatus {
  std::string phase;  // Active or Terminating
  Json unknown;       // conditions
};
const reflect::StructSchema& describe(reflect::Tag<NamespaceStatus>);

struct Namespace {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  NamespaceSpec spec;
  NamespaceStatus status;
};
const reflect::StructSchema& describe(reflect::Tag<Namespace>);

}  // namespace nodewright::api::corev1
