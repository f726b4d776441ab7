// k8s.io/api/core/v1/generated.proto: the non-pod kinds kubectl creates through its typed
// clients (namespaces, config maps, secrets) and ServiceAccount.
#include "apiserver/protobuf/messages.h"

namespace nodewright::apiserver::protobuf {
namespace {

using namespace field;

constexpr Field kNamespaceSpecFields[] = {repeated(str(1, "finalizers"))};
constexpr MessageDescriptor kNamespaceSpec{"NamespaceSpec", kNamespaceSpecFields};

constexpr Field kNamespaceConditionFields[] = {
    str(1, "type").keep(), str(2, "status").keep(), time(4, "lastTransitionTime"),
    str(5, "reason"),      str(6, "message"),
};
constexpr MessageDescriptor kNamespaceCondition{"NamespaceCondition", kNamespaceConditionFields};

constexpr Field kNamespaceStatusFields[] = {
    str(1, "phase"),
    repeated(message(2, "conditions", kNamespaceCondition)),
};
constexpr MessageDescriptor kNamespaceStatus{"NamespaceStatus", kNamespaceStatusFields};

constexpr Field kNamespaceFields[] = {
    message(1, "metadata", kObjectMeta),
    message(2, "spec", kNamespaceSpec),
    message(3, "status", kNamespaceStatus),
};

constexpr Field kConfigMapFields[] = {
    message(1, "metadata", kObjectMeta),
    boolean(4, "immutable").keep(),
    mapOf(str(2, "data")),
    mapOf(bytes(3, "binaryData")),
};

constexpr Field kSecretFields[] = {
    message(1, "metadata", kObjectMeta),
    boolean(5, "immutable").keep(),
    mapOf(bytes(2, "data")),
    mapOf(str(4, "stringData")),
    str(3, "type"),
};

constexpr Field kLocalObjectReferenceFields[] = {str(1, "name")};

constexpr Field kObjectReferenceFields[] = {
    str(1, "kind"),       str(2, "namespace"),       str(3, "name"),      str(4, "uid"),
    str(5, "apiVersion"), str(6, "resourceVersion"), str(7, "fieldPath"),
};
constexpr MessageDescriptor kObjectReference{"ObjectReference", kObjectReferenceFields};

constexpr Field kServiceAccountFields[] = {
    message(1, "metadata", kObjectMeta),
    repeated(message(2, "secrets", kObjectReference)),
    repeated(message(3, "imagePullSecrets", kLocalObjectReference)),
    boolean(4, "automountServiceAccountToken").keep(),
};

}  // namespace

constinit const MessageDescriptor kNamespace{"Namespace", kNamespaceFields};
constinit const MessageDescriptor kConfigMap{"ConfigMap", kConfigMapFields};
constinit const MessageDescriptor kSecret{"Secret", kSecretFields};
constinit const MessageDescriptor kLocalObjectReference{"LocalObjectReference",
                                                        kLocalObjectReferenceFields};
constinit const MessageDescriptor kServiceAccount{"ServiceAccount", kServiceAccountFields};

}  // namespace nodewright::apiserver::protobuf
