#include "aws/query_builder.h"

namespace nodewright::aws {

std::string ParamBuilder::full(std::string_view name) const {
  std::string s = prefix_;
  s.append(name);
  return s;
}

ParamBuilder& ParamBuilder::set(std::string_view name, std::string_view value) {
  root().pairs_.emplace_back(full(name), std::string(value));
  return *this;
}

ParamBuilder& ParamBuilder::set(std::string_view name, bool value) {
  return set(name, std::string_view(value ? "true" : "false"));
}

ParamBuilder& ParamBuilder::setIfNotEmpty(std::string_view name, std::string_view value) {
  if (!value.empty()) {
    set(name, value);
  }
  return *this;
}

ParamBuilder& ParamBuilder::list(std::string_view name, const std::vector<std::string>& values) {
  for (size_t i = 0; i < values.size(); ++i) {
    set(std::string(name) + "." + std::to_string(i + 1), values[i]);
  }
  return *this;
}

ParamBuilder ParamBuilder::nested(std::string_view name) {
  return ParamBuilder(&root(), full(name) + ".");
}

ParamBuilder ParamBuilder::member(std::string_view list, int index) {
  return ParamBuilder(&root(), full(list) + "." + std::to_string(index) + ".");
}

ParamBuilder& ParamBuilder::filter(std::string_view name, const std::vector<std::string>& values) {
  ParamBuilder f = member("Filter", ++filters_);
  f.set("Name", name);
  f.list("Value", values);
  return *this;
}

ParamBuilder& ParamBuilder::tagSpecification(
    std::string_view resourceType, const std::vector<std::pair<std::string, std::string>>& tags) {
  ParamBuilder spec = member("TagSpecification", ++tagSpecifications_);
  spec.set("ResourceType", resourceType);
  for (size_t i = 0; i < tags.size(); ++i) {
    ParamBuilder tag = spec.member("Tag", static_cast<int>(i + 1));
    tag.set("Key", tags[i].first);
    tag.set("Value", tags[i].second);
  }
  return *this;
}

}  // namespace nodewright::aws
