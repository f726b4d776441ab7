#pragma once

#include <concepts>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "aws/query.h"

// Builds EC2 Query parameters with their flattened names: lists are 1-based (InstanceId.1),
// structures nest with dots (LaunchTemplateData.NetworkInterface.1.DeviceIndex).
namespace nodewright::aws {

// Thread-compatible. Names are not checked; EC2 rejects the unknown ones.
class ParamBuilder {
 public:
  ParamBuilder() = default;
  explicit ParamBuilder(std::string prefix) : prefix_(std::move(prefix)) {}

  ParamBuilder& set(std::string_view name, std::string_view value);
  ParamBuilder& set(std::string_view name, const char* value) {
    return set(name, std::string_view(value));
  }
  ParamBuilder& set(std::string_view name, const std::string& value) {
    return set(name, std::string_view(value));
  }
  // "true"/"false", as the Query protocol writes booleans.
  ParamBuilder& set(std::string_view name, bool value);
  template <std::integral T>
  requires(!std::same_as<T, bool>) ParamBuilder& set(std::string_view name, T value) {
    return set(name, std::string_view(std::to_string(value)));
  }
  // Sets when `value` is not empty, so optional fields need no branch at the call site.
  ParamBuilder& setIfNotEmpty(std::string_view name, std::string_view value);

  // name.1=values[0], name.2=values[1], ...
  ParamBuilder& list(std::string_view name, const std::vector<std::string>& values);

  // A nested structure: the builder of "name." (or "name.N." for member N of a list) whose
  // pairs land in this one. The returned builder must not outlive this one.
  ParamBuilder nested(std::string_view name);
  ParamBuilder member(std::string_view list, int index);

  // Filter.N.Name and Filter.N.Value.M, appended after the filters already set.
  ParamBuilder& filter(std::string_view name, const std::vector<std::string>& values);
  // TagSpecification.N.ResourceType and its Tag.M.Key/Value, appended likewise.
  ParamBuilder& tagSpecification(std::string_view resourceType,
                                 const std::vector<std::pair<std::string, std::string>>& tags);

  const ParamPairs& pairs() const { return root().pairs_; }
  ParamPairs take() { return std::move(root().pairs_); }

 private:
  ParamBuilder(ParamBuilder* root, std::string prefix) : root_(root), prefix_(std::move(prefix)) {}
  ParamBuilder& root() { return root_ ? *root_ : *this; }
  const ParamBuilder& root() const { return root_ ? *root_ : *this; }
  std::string full(std::string_view name) const;

  ParamBuilder* root_ = nullptr;  // the builder holding the pairs; null when this is it
  std::string prefix_;
  ParamPairs pairs_;
  int filters_ = 0;
  int tagSpecifications_ = 0;
};

}  // namespace nodewright::aws
