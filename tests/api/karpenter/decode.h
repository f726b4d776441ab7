#pragma once

#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "api/object.h"
#include "api/yaml.h"

// Decoding helpers shared by the Karpenter API tests: YAML text -> defaulted, validated object.
namespace nodewright::api::karpenter::testing {

// Decodes the single document in `yaml` through the builtin registry.
inline DecodedObject decodeOne(std::string_view yaml) {
  auto docs = parseDocuments(yaml);
  if (!docs) {
    ADD_FAILURE() << "unparsable YAML: " << docs.error().message();
    return {};
  }
  if (docs->size() != 1) {
    ADD_FAILURE() << "expected one document, got " << docs->size();
    return {};
  }
  DecodedObject out = decodeObject(docs->front().value, builtinRegistry());
  for (const FieldError& e : docs->front().errors) {
    out.errors.insert(out.errors.begin(), e);
  }
  return out;
}

// Every error as "path: message", in the order reported.
inline std::vector<std::string> errorStrings(const FieldErrors& errors) {
  std::vector<std::string> out;
  out.reserve(errors.size());
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

// The decoded object as T, failing the test when decoding reported anything.
template <class T>
T decodeValid(std::string_view yaml) {
  DecodedObject d = decodeOne(yaml);
  EXPECT_EQ(errorStrings(d.errors), std::vector<std::string>{});
  if (!d.object || d.object->as<T>() == nullptr) {
    ADD_FAILURE() << "no object of the expected kind";
    return T{};
  }
  return *d.object->as<T>();
}

}  // namespace nodewright::api::karpenter::testing
