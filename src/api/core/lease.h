#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/meta.h"
#include "api/reflect/schema.h"

// coordination.k8s.io/v1 Lease: leader election and node heartbeats. acquireTime and renewTime
// are MicroTimes upstream; core::Time keeps microseconds and writes them when non-zero.
namespace nodewright::api::corev1 {

struct LeaseSpec {
  std::string holderIdentity;
  std::optional<int32_t> leaseDurationSeconds;
  core::Time acquireTime;
  core::Time renewTime;
  std::optional<int32_t> leaseTransitions;
  std::string strategy;
  std::string preferredHolder;
  Json unknown;
};
const reflect::StructSchema& describe(reflect::Tag<LeaseSpec>);

struct Lease {
  std::string apiVersion;
  std::string kind;
  ObjectMeta metadata;
  LeaseSpec spec;
};
const reflect::StructSchema& describe(reflect::Tag<Lease>);

}  // namespace nodewright::api::corev1
