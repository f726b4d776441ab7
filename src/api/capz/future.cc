#include "api/capz/future.h"

namespace nodewright::api::capz {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

const StructSchema& describe(Tag<Future>) {
  // CAPZ leaves the type open (its code writes PUT, PATCH and DELETE), so no enum here.
  static const StructSchema s =
      StructBuilder<Future>("Future",
                            "An Azure long-running operation to resume on the next reconcile.")
          .field<&Future::type>("type",
                                "Kind of request the operation came from: PUT, PATCH or DELETE.")
          .required()
          .field<&Future::resourceGroup>(
              "resourceGroup",
              "Azure resource group of the resource being changed; with serviceName, name and "
              "type, identifies the operation.")
          // A list-map key must be required or defaulted (CRD structural rules); CAPZ leaves
          // the group optional, so it defaults to empty.
          .defaultsTo(Json(""))
          .field<&Future::serviceName>(
              "serviceName",
              "Azure service the resource belongs to; with resourceGroup and name, identifies it.")
          .required()
          .field<&Future::name>(
              "name",
              "Name of the Azure resource; with serviceName and resourceGroup, identifies it.")
          .required()
          .field<&Future::data>("data", "Opaque, base64 encoded state to resume polling with.")
          .build();
  return s;
}

}  // namespace nodewright::api::capz
