#include "api/core/lease.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<LeaseSpec>) {
  static const StructSchema s =
      StructBuilder<LeaseSpec>("LeaseSpec", "Who holds the lease and until when.")
          .field<&LeaseSpec::holderIdentity>("holderIdentity", "Identity of the current holder.")
          .field<&LeaseSpec::leaseDurationSeconds>(
              "leaseDurationSeconds",
              "How long candidates wait after the last renewal before taking the lease over.")
          .field<&LeaseSpec::acquireTime>("acquireTime", "When the current holder acquired it.")
          .field<&LeaseSpec::renewTime>("renewTime", "When the current holder last renewed it.")
          .field<&LeaseSpec::leaseTransitions>("leaseTransitions",
                                               "How many times the holder has changed.")
          .min(0)
          .field<&LeaseSpec::strategy>("strategy",
                                       "Coordinated leader election strategy for candidates.")
          .field<&LeaseSpec::preferredHolder>(
              "preferredHolder", "A holder the current one should hand the lease over to.")
          .keepUnknownIn<&LeaseSpec::unknown>()
          .validate([](const LeaseSpec& spec, const FieldPath& path, FieldErrors& errors) {
            if (spec.leaseDurationSeconds && *spec.leaseDurationSeconds <= 0) {
              errors.push_back(
                  {path.child("leaseDurationSeconds").str(),
                   fielderr::invalid(Json(*spec.leaseDurationSeconds), "must be greater than 0")});
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Lease>) {
  static const StructSchema s = [] {
    StructBuilder<Lease> b("Lease", "A lease on a named resource: leader election, heartbeats.");
    withTypeMeta(b);
    return b.field<&Lease::spec>("spec", "Who holds the lease and until when.").build();
  }();
  return s;
}

}  // namespace nodewright::api::corev1
