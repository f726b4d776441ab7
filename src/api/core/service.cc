#include "api/core/service.h"

#include <set>
#include <utility>

#include "api/core/validation.h"
#include "api/labels.h"

namespace nodewright::api::corev1 {

using reflect::StructBuilder;
using reflect::StructSchema;
using reflect::Tag;

namespace {

constexpr const char* kTypeExternalName = "ExternalName";
constexpr const char* kClusterIPNone = "None";

std::string portRangeError() {
  return "must be between 1 and 65535, inclusive";
}

// IsValidPortName: what a targetPort string must be (an IANA service name).
std::vector<std::string> portNameErrors(std::string_view name) {
  std::vector<std::string> out;
  if (name.empty() || name.size() > 15) {
    out.push_back("must be no more than 15 characters");
  }
  bool letter = false;
  bool valid = true;
  for (char c : name) {
    bool lower = c >= 'a' && c <= 'z';
    letter = letter || lower;
    valid = valid && (lower || (c >= '0' && c <= '9') || c == '-');
  }
  if (!valid) {
    out.push_back("must contain only alpha-numeric characters (a-z, 0-9), and hyphens (-)");
  }
  if (!letter) {
    out.push_back("must contain at least one letter (a-z)");
  }
  if (name.find("--") != std::string_view::npos) {
    out.push_back("must not contain consecutive hyphens");
  }
  if (!name.empty() && (name.front() == '-' || name.back() == '-')) {
    out.push_back("must not begin or end with a hyphen");
  }
  return out;
}

void validatePort(const ServicePort& port, bool nameRequired, const FieldPath& path,
                  FieldErrors& errors) {
  const FieldPath name = path.child("name");
  if (port.name.empty()) {
    if (nameRequired) {
      errors.push_back({name.str(), fielderr::required()});
    }
  } else {
    for (const std::string& msg : dns1123LabelErrors(port.name)) {
      errors.push_back({name.str(), invalidText(port.name, msg)});
    }
  }
  if (port.port == 0) {
    errors.push_back({path.child("port").str(), fielderr::required()});
  } else if (port.port < 1 || port.port > 65535) {
    errors.push_back(
        {path.child("port").str(), fielderr::invalid(Json(port.port), portRangeError())});
  }
  if (port.targetPort) {
    const FieldPath target = path.child("targetPort");
    if (!port.targetPort->isString) {
      int64_t value = port.targetPort->intValue;
      if (value < 1 || value > 65535) {
        errors.push_back({target.str(), fielderr::invalid(Json(value), portRangeError())});
      }
    } else {
      for (const std::string& msg : portNameErrors(port.targetPort->stringValue)) {
        errors.push_back({target.str(), invalidText(port.targetPort->stringValue, msg)});
      }
    }
  }
  if (port.nodePort < 0 || port.nodePort > 65535) {
    errors.push_back(
        {path.child("nodePort").str(), fielderr::invalid(Json(port.nodePort), portRangeError())});
  }
}

void validateServiceSpec(const ServiceSpec& spec, const FieldPath& path, FieldErrors& errors) {
  const FieldPath ports = path.child("ports");
  const bool headless = spec.clusterIP == kClusterIPNone;
  if (spec.ports.empty() && !headless && spec.type != kTypeExternalName) {
    errors.push_back({ports.str(), fielderr::required()});
  }
  std::set<std::string> names;
  std::set<std::pair<int32_t, std::string>> portProtocols;
  for (size_t i = 0; i < spec.ports.size(); ++i) {
    const ServicePort& port = spec.ports[i];
    const FieldPath at = ports.index(i);
    validatePort(port, spec.ports.size() > 1, at, errors);
    if (!port.name.empty() && !names.insert(port.name).second) {
      errors.push_back({at.child("name").str(), fielderr::duplicate(Json(port.name))});
    }
    // Defaulting has run by now upstream; an empty protocol means TCP either way.
    std::string protocol = port.protocol.empty() ? "TCP" : port.protocol;
    if (port.port != 0 && !portProtocols.insert({port.port, protocol}).second) {
      errors.push_back(
          {at.str(), fielderr::duplicate(Json{{"port", port.port}, {"protocol", protocol}})});
    }
  }
  if (spec.type == kTypeExternalName) {
    const FieldPath externalName = path.child("externalName");
    if (spec.externalName.empty()) {
      errors.push_back({externalName.str(), fielderr::required()});
    } else {
      for (const std::string& msg : dns1123SubdomainErrors(spec.externalName)) {
        errors.push_back({externalName.str(), invalidText(spec.externalName, msg)});
      }
    }
  }
  validateLabels(spec.selector, path.child("selector"), errors);
}

}  // namespace

const StructSchema& describe(Tag<LocalObjectReference>) {
  static const StructSchema s =
      StructBuilder<LocalObjectReference>("LocalObjectReference",
                                          "Names an object in the same namespace.")
          .field<&LocalObjectReference::name>("name", "Name of the referent.")
          .keepUnknownIn<&LocalObjectReference::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<ServiceAccount>) {
  static const StructSchema s = [] {
    StructBuilder<ServiceAccount> b(
        "ServiceAccount",
        "An identity for processes that run in a pod. Stored only: the embedded "
        "API server issues no tokens.");
    withTypeMeta(b);
    return b
        .field<&ServiceAccount::secrets>("secrets", "Secrets pods running as this account may use.")
        .mapList({"name"})
        .field<&ServiceAccount::imagePullSecrets>(
            "imagePullSecrets", "Secrets used to pull images of pods running as this account.")
        .field<&ServiceAccount::automountServiceAccountToken>(
            "automountServiceAccountToken",
            "Whether pods running as this account get an API token mounted.")
        .build();
  }();
  return s;
}

const StructSchema& describe(Tag<ServicePort>) {
  static const StructSchema s =
      StructBuilder<ServicePort>("ServicePort", "One port a Service exposes.")
          .field<&ServicePort::name>("name",
                                     "Name of the port; required when the Service has several.")
          .field<&ServicePort::protocol>("protocol", "IP protocol: TCP, UDP or SCTP.")
          .enums({"TCP", "UDP", "SCTP"})
          .defaultsTo("TCP")
          .field<&ServicePort::appProtocol>("appProtocol", "Application protocol, e.g. http.")
          .field<&ServicePort::port>("port", "The port the Service listens on.")
          .required()
          .field<&ServicePort::targetPort>(
              "targetPort",
              "The pods' port: a number or a container port's name; defaults to port.")
          .field<&ServicePort::nodePort>("nodePort",
                                         "The port on each node (NodePort and LoadBalancer).")
          .keepUnknownIn<&ServicePort::unknown>()
          .defaults([](ServicePort& port) {
            if (!port.targetPort && port.port != 0) {
              port.targetPort = IntOrString::ofInt(port.port);
            }
          })
          .build();
  return s;
}

const StructSchema& describe(Tag<ServiceSpec>) {
  static const StructSchema s =
      StructBuilder<ServiceSpec>("ServiceSpec", "Which pods a Service routes to, and how.")
          .field<&ServiceSpec::ports>("ports", "The ports the Service exposes.")
          .mapList({"port", "protocol"})
          .field<&ServiceSpec::selector>("selector", "Routes to pods with these labels.")
          .field<&ServiceSpec::clusterIP>("clusterIP",
                                          "The virtual IP; \"None\" makes a headless Service.")
          .field<&ServiceSpec::clusterIPs>("clusterIPs", "The virtual IPs, one per IP family.")
          .field<&ServiceSpec::type>("type",
                                     "ClusterIP (default), NodePort, LoadBalancer or ExternalName.")
          .enums({"ClusterIP", "NodePort", "LoadBalancer", "ExternalName"})
          .defaultsTo("ClusterIP")
          .field<&ServiceSpec::externalName>("externalName",
                                             "The DNS name an ExternalName Service aliases.")
          .field<&ServiceSpec::sessionAffinity>("sessionAffinity", "None (default) or ClientIP.")
          .enums({"None", "ClientIP"})
          .defaultsTo("None")
          .keepUnknownIn<&ServiceSpec::unknown>()
          .validate(validateServiceSpec)
          .build();
  return s;
}

const StructSchema& describe(Tag<ServiceStatus>) {
  static const StructSchema s =
      StructBuilder<ServiceStatus>("ServiceStatus", "The observed state of a Service.")
          .field<&ServiceStatus::loadBalancer>("loadBalancer", "The load balancer, if any.")
          .field<&ServiceStatus::conditions>("conditions", "The Service's conditions.")
          .mapList({"type"})
          .keepUnknownIn<&ServiceStatus::unknown>()
          .build();
  return s;
}

const StructSchema& describe(Tag<Service>) {
  static const StructSchema s = [] {
    StructBuilder<Service> b("Service",
                             "A named set of ports routed to the pods a selector picks. Stored "
                             "only: the embedded API server allocates no IPs or node ports.");
    withTypeMeta(b);
    return b.field<&Service::spec>("spec", "The desired Service.")
        .field<&Service::status>("status", "The observed state.")
        .build();
  }();
  return s;
}

}  // namespace nodewright::api::corev1
