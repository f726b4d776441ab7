// k8s.io/apimachinery/pkg/apis/meta/v1/generated.proto. ObjectMeta.managedFields (17) is left
// out: its fieldsV1 is raw JSON inside protobuf, and clients never send it on create.
#include "apiserver/protobuf/messages.h"

namespace nodewright::apiserver::protobuf {
namespace {

using namespace field;

constexpr Field kOwnerReferenceFields[] = {
    str(5, "apiVersion").keep(),     str(1, "kind").keep(),
    str(3, "name").keep(),           str(4, "uid").keep(),
    boolean(6, "controller").keep(), boolean(7, "blockOwnerDeletion").keep(),
};
constexpr MessageDescriptor kOwnerReference{"OwnerReference", kOwnerReferenceFields};

constexpr Field kObjectMetaFields[] = {
    str(1, "name"),
    str(2, "generateName"),
    str(3, "namespace"),
    str(4, "selfLink"),
    str(5, "uid"),
    str(6, "resourceVersion"),
    i64(7, "generation"),
    time(8, "creationTimestamp"),
    time(9, "deletionTimestamp"),
    i64(10, "deletionGracePeriodSeconds").keep(),
    mapOf(str(11, "labels")),
    mapOf(str(12, "annotations")),
    repeated(message(13, "ownerReferences", kOwnerReference)),
    repeated(str(14, "finalizers")),
};

constexpr Field kLabelSelectorRequirementFields[] = {
    str(1, "key").keep(),
    str(2, "operator").keep(),
    repeated(str(3, "values")),
};
constexpr MessageDescriptor kLabelSelectorRequirement{"LabelSelectorRequirement",
                                                      kLabelSelectorRequirementFields};

constexpr Field kLabelSelectorFields[] = {
    mapOf(str(1, "matchLabels")),
    repeated(message(2, "matchExpressions", kLabelSelectorRequirement)),
};

constexpr Field kPreconditionsFields[] = {
    str(1, "uid").keep(),
    str(2, "resourceVersion").keep(),
};
constexpr MessageDescriptor kPreconditions{"Preconditions", kPreconditionsFields};

constexpr Field kDeleteOptionsFields[] = {
    i64(1, "gracePeriodSeconds").keep(),
    message(2, "preconditions", kPreconditions),
    boolean(3, "orphanDependents").keep(),
    str(4, "propagationPolicy").keep(),
    repeated(str(5, "dryRun")),
    boolean(6, "ignoreStoreReadErrorWithClusterBreakingPotential").keep(),
};

constexpr Field kConditionFields[] = {
    str(1, "type").keep(),         str(2, "status").keep(), i64(3, "observedGeneration"),
    time(4, "lastTransitionTime"), str(5, "reason").keep(), str(6, "message").keep(),
};

}  // namespace

constinit const MessageDescriptor kObjectMeta{"ObjectMeta", kObjectMetaFields};
constinit const MessageDescriptor kLabelSelector{"LabelSelector", kLabelSelectorFields};
constinit const MessageDescriptor kDeleteOptions{"DeleteOptions", kDeleteOptionsFields};
constinit const MessageDescriptor kCondition{"Condition", kConditionFields};

}  // namespace nodewright::apiserver::protobuf
