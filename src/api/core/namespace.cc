#include "api/core/namespace.h"

#include "api/core/validation.h"
#include "api/labels.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<NamespaceSpec>) {
  static const StructSchema s =
      StructBuilder<NamespaceSpec>("NamespaceSpec", "How a namespace is set up.")
          .field<&NamespaceSpec::finalizers>(
              "finalizers", "Must be empty before the namespace is removed from storage.")
          .keepUnknownIn<&NamespaceSpec::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<NamespaceStatus>) {
  static const StructSchema s =
      StructBuilder<NamespaceStatus>("NamespaceStatus", "The observed state of a namespace.")
          .field<&NamespaceStatus::phase>("phase", "Active or Terminating.")
          .keepUnknownIn<&NamespaceStatus::unknown>()
          .validate([](const NamespaceStatus& st, const FieldPath& path, FieldErrors& errors) {
            checkOptionalEnum(st.phase, {"Active", "Terminating"}, path.child("phase"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Namespace>) {
  static const StructSchema s = [] {
    StructBuilder<Namespace> b("Namespace", "A scope for names; most objects live in one.");
    withTypeMeta(b);
    return b.field<&Namespace::spec>("spec", "How the namespace is set up.")
        .field<&Namespace::status>("status", "The observed state of the namespace.")
        .validate([](const Namespace& ns, const FieldPath& path, FieldErrors& errors) {
          // Namespace names become DNS labels (service.namespace.svc).
          const std::string& name = ns.metadata.name;
          if (!name.empty()) {
            for (const std::string& msg : dns1123LabelErrors(name)) {
              errors.push_back(
                  {path.child("metadata").child("name").str(), invalidText(name, msg)});
            }
          }
        })
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::corev1
