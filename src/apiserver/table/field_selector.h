#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/json.h"
#include "apiserver/resources.h"
#include "core/error.h"

// fieldSelector, as apimachinery's fields package parses it and kube-apiserver checks it per kind.
namespace nodewright::apiserver {

struct FieldRequirement {
  std::string field;  // a dotted path: "spec.nodeName"
  bool equal = true;  // false for "!="
  std::string value;  // unescaped

  bool operator==(const FieldRequirement&) const = default;
};

class FieldSelector {
 public:
  // fields.ParseSelector: comma-separated "field=value", "field==value" or "field!=value" terms;
  // in values "\\", "\," and "\=" stand for the characters. An empty text selects everything.
  // Invalid with apimachinery's messages: "invalid selector: '<text>'; can't understand
  // '<term>'", "invalid field selector: invalid escape sequence: \x", "invalid field selector:
  // unescaped character in value: 61" (Go prints the rune's code).
  static core::Result<FieldSelector> parse(std::string_view text);

  // The field labels kube-apiserver accepts for the resource (ConvertFieldLabel), with the
  // requirements renamed as it renames them (a Pod's "spec.host" is "spec.nodeName"). Invalid
  // with kube's message for the first unsupported label: "field label not supported: X" for
  // kinds with their own label list and for custom resources, "\"X\" is not a known field
  // selector: only \"metadata.name\", \"metadata.namespace\"" for the other built-in kinds.
  // Resource::fieldSelectors adds labels to whichever list applies.
  core::Result<FieldSelector> forResource(const Resource& resource) const;

  // True when every requirement holds. A field reads as kube's selectable field sets give it:
  // strings as they are, booleans "true"/"false", numbers in decimal, and absent fields as the
  // Go zero value ("" in general; "false" for spec.unschedulable and spec.hostNetwork, "0" for
  // status.replicas). An Event's "source" is source.component, else reportingComponent; a Pod's
  // status.podIP is its first status.podIPs entry.
  bool matches(const api::Json& object) const;

  bool empty() const { return requirements_.empty(); }
  const std::vector<FieldRequirement>& requirements() const { return requirements_; }
  // The canonical text: sorted terms, values escaped ("a=b,c!=d").
  std::string toString() const;

 private:
  std::vector<FieldRequirement> requirements_;
};

// The field labels kube-apiserver's conversion accepts for a built-in kind, metadata.name and
// (where accepted) metadata.namespace included; {"metadata.name", "metadata.namespace"} for
// kinds without their own list. Cluster-scoped Node and Namespace do not accept
// metadata.namespace, as upstream.
std::vector<std::string> builtinFieldLabels(std::string_view group, std::string_view kind);

}  // namespace nodewright::apiserver
