#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/capi/common.h"
#include "api/meta.h"
#include "api/object.h"
#include "kube/client.h"

// Provider objects (the infrastructure kinds: AzureCluster, AzureMachine, AzureMachinePool and
// their templates) reached generically through an ObjectReference, as CAPI's external package
// does with unstructured objects: the core controllers know no provider type and read only the
// fields of the infrastructure contract from the object's JSON.
namespace nodewright::controllers::capi {

// The infrastructure contract fields CAPI reads from a provider object; absent fields stay
// empty.
struct InfraContract {
  bool ready = false;                                // status.ready
  std::optional<std::string> providerID;             // spec.providerID
  std::vector<api::capi::MachineAddress> addresses;  // status.addresses
  std::optional<std::string> failureReason;          // status.failureReason
  std::optional<std::string> failureMessage;         // status.failureMessage
  std::vector<std::string> providerIDList;           // spec.providerIDList (machine pools)
  std::optional<int32_t> replicas;                   // status.replicas (machine pools)
  std::optional<int32_t> readyReplicas;              // status.readyReplicas (machine pools)
  std::optional<api::capi::APIEndpoint> controlPlaneEndpoint;  // spec.controlPlaneEndpoint
};
InfraContract readContract(const api::Object& object);

// The object `ref` points to; a reference without a namespace points into `ns`. Invalid when
// the registry has no such apiVersion/kind, NotFound when the object does not exist.
kube::ApiResult<api::Object> getExternal(kube::Client& client, const api::ObjectReference& ref,
                                         const std::string& ns);

// A controller reference to an object of the core kinds.
api::OwnerReference controllerRef(const std::string& kind, const api::ObjectMeta& owner);
// The uid of the object's controller owner, or "" when it has none.
std::string controllerUid(const api::ObjectMeta& meta);

// Makes `owner` the controller of `object` (a cloned object passes from its MachineSet, which
// holds a plain reference, to its Machine) and adds `labels`. An object another controller
// owns is not taken over: Conflict. Writes only when something changed; returns the object as
// stored.
kube::ApiResult<api::Object> adoptExternal(kube::Client& client, const api::Object& object,
                                           const api::OwnerReference& owner,
                                           const std::map<std::string, std::string>& labels);

struct CloneRequest {
  api::ObjectReference templateRef;  // an XxxTemplate: its spec.template becomes the object
  std::string ns;
  std::string name;
  std::map<std::string, std::string> labels;
  std::map<std::string, std::string> annotations;
  // Not a controller reference: the object's controller is set once its Machine exists.
  api::OwnerReference owner;
  // The template as the caller already read it (one read for many clones); null: read it.
  const api::Object* fetchedTemplate = nullptr;
};
struct Clone {
  api::ObjectReference ref;
  bool created = false;  // false: an earlier attempt's clone (a retry after a lost answer)
};
// Creates the object a template describes (kind without the "Template" suffix) and returns a
// reference to it. An object of that name that already exists is taken as this clone only when
// it is one (owned by request.owner, cloned from the template, not yet adopted); otherwise
// AlreadyExists.
kube::ApiResult<Clone> cloneFromTemplate(kube::Client& client, const CloneRequest& request);

// Starts deleting the object `ref` points to; true once it is gone (NotFound), false while it
// is still there (its provider's finalizer holds it).
kube::ApiResult<bool> deleteExternal(kube::Client& client, const api::ObjectReference& ref,
                                     const std::string& ns);

}  // namespace nodewright::controllers::capi
