#pragma once

// A small, stable registry for tests of the CRD generator and the command line: its kinds do
// not change when the real API groups grow. Header-only (inline describe functions) so both the
// api and cmd test binaries can include it.

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/meta.h"
#include "api/registry.h"

namespace nodewright::testkinds {

using api::Json;

struct Port {
  std::string name;
  std::optional<int32_t> port;
  std::string protocol;
};

struct WidgetSpec {
  std::string size;
  int32_t replicas = 0;
  std::vector<Port> ports;
  std::map<std::string, std::string> labels;
  std::vector<std::string> zones;
  std::optional<core::Quantity> memory;
  api::IntOrString maxUnavailable;
  api::Json extra;
};

struct WidgetStatus {
  std::vector<api::Condition> conditions;
};

struct Widget {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  WidgetSpec spec;
  std::optional<WidgetStatus> status;
};

struct WidgetV1Alpha1 {
  std::string apiVersion;
  std::string kind;
  api::ObjectMeta metadata;
  std::map<std::string, std::string> spec;
};

inline const api::reflect::StructSchema& describe(api::reflect::Tag<Port>) {
  static const api::reflect::StructSchema s =
      api::reflect::StructBuilder<Port>("Port", "A port the widget listens on.")
          .field<&Port::name>("name", "Name of the port.")
          .required()
          .field<&Port::port>("port", "Port number.")
          .min(1)
          .max(65535)
          .field<&Port::protocol>("protocol", "Transport protocol.")
          .enums({"TCP", "UDP"})
          .defaultsTo("TCP")
          .build();
  return s;
}

inline const api::reflect::StructSchema& describe(api::reflect::Tag<WidgetSpec>) {
  static const api::reflect::StructSchema s =
      api::reflect::StructBuilder<WidgetSpec>("WidgetSpec", "Desired state of a widget.")
          .field<&WidgetSpec::size>("size", "How big the widget is.")
          .required()
          .enums({"small", "large"})
          .field<&WidgetSpec::replicas>("replicas", "Number of copies.")
          .min(0)
          .field<&WidgetSpec::ports>("ports", "Ports the widget listens on.")
          .mapList({"name", "protocol"})
          .maxItems(4)
          .field<&WidgetSpec::labels>("labels", "Labels for the copies.")
          .field<&WidgetSpec::zones>("zones", "Zones to run in.")
          .setList()
          .field<&WidgetSpec::memory>("memory", "Memory per copy.")
          .field<&WidgetSpec::maxUnavailable>("maxUnavailable", "Copies that may be down at once.")
          .field<&WidgetSpec::extra>("extra", "Free-form settings kept verbatim.")
          .build();
  return s;
}

inline const api::reflect::StructSchema& describe(api::reflect::Tag<WidgetStatus>) {
  static const api::reflect::StructSchema s =
      api::reflect::StructBuilder<WidgetStatus>("WidgetStatus", "Observed state of a widget.")
          .field<&WidgetStatus::conditions>("conditions", "Current conditions.")
          .build();
  return s;
}

inline const api::reflect::StructSchema& describe(api::reflect::Tag<Widget>) {
  static const api::reflect::StructSchema s = [] {
    api::reflect::StructBuilder<Widget> b("Widget", "A widget for tests.");
    api::withTypeMeta(b);
    return b.field<&Widget::spec>("spec", "Desired state.")
        .required()
        .field<&Widget::status>("status", "Observed state.")
        .build();
  }();
  return s;
}

inline const api::reflect::StructSchema& describe(api::reflect::Tag<WidgetV1Alpha1>) {
  static const api::reflect::StructSchema s = [] {
    api::reflect::StructBuilder<WidgetV1Alpha1> b("Widget", "The first widget.");
    api::withTypeMeta(b);
    return b.field<&WidgetV1Alpha1::spec>("spec", "Settings.").build();
  }();
  return s;
}

// test.nodewright.io Widget in v1alpha1 and v1 (namespaced, printer columns, status), and
// cluster-scoped Gadget without a status subresource. Built once; immutable.
inline const api::Registry& testRegistry() {
  static const api::Registry registry = [] {
    api::Registry r;
    api::KindInfo v1 = api::kindFor<Widget>("test.nodewright.io", "v1", "Widget", "widgets");
    v1.namespaced = true;
    v1.shortNames = {"wd"};
    v1.categories = {"nodewright"};
    v1.printerColumns = {{"Size", "string", ".spec.size", "", 0},
                         {"Replicas", "integer", ".spec.replicas", "Number of copies.", 1}};
    r.add(v1);
    api::KindInfo alpha =
        api::kindFor<WidgetV1Alpha1>("test.nodewright.io", "v1alpha1", "Widget", "widgets");
    alpha.namespaced = true;
    alpha.statusSubresource = false;
    r.add(alpha);
    api::KindInfo gadget =
        api::kindFor<WidgetV1Alpha1>("test.nodewright.io", "v1", "Gadget", "gadgets");
    gadget.statusSubresource = false;
    gadget.doc = "A gadget for tests.";
    r.add(gadget);
    api::KindInfo builtin = api::kindFor<WidgetV1Alpha1>("", "v1", "Thing", "things");
    builtin.custom = false;
    r.add(builtin);
    return r;
  }();
  return registry;
}

}  // namespace nodewright::testkinds
