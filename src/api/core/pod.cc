#include "api/core/pod.h"

#include <set>

#include "api/core/validation.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

void validateResources(const ResourceRequirements& r, const FieldPath& path, FieldErrors& errors) {
  auto nonNegative = [&](const ResourceList& list, std::string_view field) {
    for (const auto& [name, q] : list) {
      if (q < core::Quantity()) {
        errors.push_back({path.child(field).key(name).str(),
                          invalidText(q.toString(), "must be greater than or equal to 0")});
      }
    }
  };
  nonNegative(r.limits, "limits");
  nonNegative(r.requests, "requests");
  for (const auto& [name, request] : r.requests) {
    auto limit = r.limits.find(name);
    if (limit != r.limits.end() && request > limit->second) {
      errors.push_back(
          {path.child("requests").key(name).str(),
           invalidText(request.toString(), "must be less than or equal to " + name + " limit of " +
                                               limit->second.toString())});
    }
  }
}

void validateContainer(const Container& c, const FieldPath& path, FieldErrors& errors) {
  if (!c.name.empty()) {
    for (const std::string& msg : dns1123LabelErrors(c.name)) {
      errors.push_back({path.child("name").str(), invalidText(c.name, msg)});
    }
  }
  checkOptionalEnum(c.restartPolicy, {"Always"}, path.child("restartPolicy"), errors);
}

void validatePodSpec(const PodSpec& spec, const FieldPath& path, FieldErrors& errors) {
  validateLabels(spec.nodeSelector, path.child("nodeSelector"), errors);
  // Names are unique across init and app containers: both are addressed by name.
  std::set<std::string> names;
  auto unique = [&](const std::vector<Container>& list, std::string_view field) {
    for (size_t i = 0; i < list.size(); ++i) {
      if (!list[i].name.empty() && !names.insert(list[i].name).second) {
        errors.push_back({path.child(field).index(i).child("name").str(),
                          fielderr::duplicate(Json(list[i].name))});
      }
    }
  };
  unique(spec.initContainers, "initContainers");
  unique(spec.containers, "containers");
}

// Upstream defaulting for Pods (not templates): a limit without a request requests the limit.
void defaultRequestsFromLimits(Pod& pod) {
  for (auto* list : {&pod.spec.initContainers, &pod.spec.containers}) {
    for (Container& c : *list) {
      for (const auto& [name, limit] : c.resources.limits) {
        c.resources.requests.try_emplace(name, limit);
      }
    }
  }
}

}  // namespace

const StructSchema& describe(Tag<ResourceRequirements>) {
  static const StructSchema s =
      StructBuilder<ResourceRequirements>("ResourceRequirements",
                                          "Compute resource requests and limits.")
          .field<&ResourceRequirements::limits>("limits",
                                                "The most of each resource the container may use.")
          .field<&ResourceRequirements::requests>(
              "requests", "The resources the container needs; scheduling reserves them.")
          .keepUnknownIn<&ResourceRequirements::unknown>()
          .validate(validateResources)
          .build();
  return s;
}

const StructSchema& describe(Tag<Container>) {
  static const StructSchema s =
      StructBuilder<Container>("Container", "A container to run in the pod.")
          .field<&Container::name>("name", "Name of the container, a DNS label unique in the pod.")
          .required()
          .field<&Container::image>("image", "Container image name.")
          .required()
          .field<&Container::resources>("resources", "Compute resources the container needs.")
          .field<&Container::restartPolicy>(
              "restartPolicy", "Init containers only: Always makes a sidecar container.")
          .keepUnknownIn<&Container::unknown>()
          .validate(validateContainer)
          .build();
  return s;
}

const StructSchema& describe(Tag<PodSpec>) {
  static const StructSchema s =
      StructBuilder<PodSpec>("PodSpec", "The desired behaviour of a pod.")
          .field<&PodSpec::nodeName>(
              "nodeName", "The node the pod is bound to; set by the scheduler when empty.")
          .field<&PodSpec::nodeSelector>("nodeSelector",
                                         "Labels a node must have for the pod to fit it.")
          .field<&PodSpec::affinity>("affinity", "The pod's scheduling constraints.")
          .field<&PodSpec::tolerations>("tolerations", "Taints the pod tolerates.")
          .field<&PodSpec::topologySpreadConstraints>(
              "topologySpreadConstraints", "How the pod's replicas spread across domains.")
          .mapList({"topologyKey", "whenUnsatisfiable"})
          .field<&PodSpec::initContainers>("initContainers",
                                           "Containers run in order before the app containers.")
          .field<&PodSpec::containers>("containers", "The pod's app containers; at least one.")
          .required()
          .field<&PodSpec::overhead>("overhead",
                                     "Resources the pod's sandbox uses beyond its containers.")
          .field<&PodSpec::priority>("priority",
                                     "Priority from the priority class; set by admission.")
          .field<&PodSpec::priorityClassName>("priorityClassName", "The pod's PriorityClass.")
          .field<&PodSpec::schedulerName>("schedulerName", "The scheduler that places the pod.")
          .defaultsTo("default-scheduler")
          .field<&PodSpec::terminationGracePeriodSeconds>(
              "terminationGracePeriodSeconds",
              "Seconds the pod gets to stop gracefully after SIGTERM.")
          .defaultsTo(30)
          .field<&PodSpec::volumes>("volumes", "Volumes the containers can mount, kept verbatim.")
          .keepUnknownIn<&PodSpec::unknown>()
          .validate(validatePodSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<PodCondition>) {
  static const StructSchema s =
      StructBuilder<PodCondition>("PodCondition", "One aspect of the pod's current state.")
          .field<&PodCondition::type>("type", "Condition type, e.g. Ready or PodScheduled.")
          .required()
          .field<&PodCondition::status>("status", "True, False or Unknown.")
          .required()
          .enums({"True", "False", "Unknown"})
          .field<&PodCondition::lastProbeTime>("lastProbeTime", "Last time it was probed.")
          .field<&PodCondition::lastTransitionTime>("lastTransitionTime",
                                                    "Last time the status changed.")
          .field<&PodCondition::reason>("reason", "Machine-readable reason for the last change.")
          .field<&PodCondition::message>("message", "Human-readable details.")
          .keepUnknownIn<&PodCondition::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<PodStatus>) {
  static const StructSchema s =
      StructBuilder<PodStatus>("PodStatus", "The observed state of a pod.")
          .field<&PodStatus::phase>("phase", "Pending, Running, Succeeded, Failed or Unknown.")
          .field<&PodStatus::conditions>("conditions", "Current service state of the pod.")
          .mapList({"type"})
          .field<&PodStatus::message>("message", "Why the pod is in this condition.")
          .field<&PodStatus::reason>("reason", "Brief CamelCase reason, e.g. Evicted.")
          .field<&PodStatus::nominatedNodeName>(
              "nominatedNodeName", "Node the scheduler expects the pod on after preemption.")
          .field<&PodStatus::hostIP>("hostIP", "IP of the node the pod runs on.")
          .field<&PodStatus::podIP>("podIP", "IP allocated to the pod.")
          .field<&PodStatus::startTime>("startTime", "When the kubelet acknowledged the pod.")
          .field<&PodStatus::qosClass>("qosClass", "Guaranteed, Burstable or BestEffort.")
          .keepUnknownIn<&PodStatus::unknown>()
          .validate([](const PodStatus& st, const FieldPath& path, FieldErrors& errors) {
            checkOptionalEnum(st.phase, {"Pending", "Running", "Succeeded", "Failed", "Unknown"},
                              path.child("phase"), errors);
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<Pod>) {
  static const StructSchema s = [] {
    StructBuilder<Pod> b("Pod", "A group of containers scheduled together onto one node.");
    withTypeMeta(b);
    return b.field<&Pod::spec>("spec", "The desired behaviour of the pod.")
        .field<&Pod::status>("status", "The observed state of the pod.")
        .defaults(defaultRequestsFromLimits)
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<PodTemplateSpec>) {
  static const StructSchema s =
      StructBuilder<PodTemplateSpec>("PodTemplateSpec", "The pods a workload creates.")
          .field<&PodTemplateSpec::metadata>("metadata", "Metadata of the created pods.")
          .field<&PodTemplateSpec::spec>("spec", "Spec of the created pods.")
          .build();
  return s;
}

const PodCondition* findCondition(const PodStatus& status, std::string_view type) {
  for (const PodCondition& c : status.conditions) {
    if (c.type == type) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace nodewright::api::corev1
