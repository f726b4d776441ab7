#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>
#include <vector>

#include "api/object.h"
#include "api/registry.h"
#include "api/yaml.h"

// Helpers for the core/v1, apps/v1 and policy/v1 kind tests.
namespace nodewright::api::testing {

// Only the core kinds, so these tests do not depend on other groups' registrations.
inline const Registry& coreRegistry() {
  static const Registry registry = [] {
    Registry r;
    registerCoreKinds(r);
    return r;
  }();
  return registry;
}

inline Json parseYaml(std::string_view text) {
  auto docs = parseDocuments(text);
  EXPECT_TRUE(docs) << (docs ? "" : docs.error().message());
  if (!docs || docs->empty()) {
    return Json();
  }
  EXPECT_TRUE(docs->front().errors.empty());
  return docs->front().value;
}

inline DecodedObject decode(const Json& doc, bool defaults = false) {
  ObjectOptions options;
  options.applyDefaults = defaults;
  return decodeObject(doc, coreRegistry(), options);
}

inline std::vector<std::string> errorStrings(const FieldErrors& errors) {
  std::vector<std::string> out;
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

// Validation errors of a manifest, decoded as kube-apiserver would (with defaults).
inline std::vector<std::string> validationErrors(std::string_view yaml) {
  return errorStrings(decode(parseYaml(yaml), /*defaults=*/true).errors);
}

// Key order and explicit nulls do not matter to a round trip; everything else does.
inline nlohmann::json comparable(const Json& value) {
  nlohmann::json out = nlohmann::json::parse(value.dump());
  std::function<void(nlohmann::json&)> prune = [&](nlohmann::json& j) {
    if (j.is_object()) {
      for (auto it = j.begin(); it != j.end();) {
        if (it->is_null()) {
          it = j.erase(it);
        } else {
          prune(*it);
          ++it;
        }
      }
    } else if (j.is_array()) {
      for (auto& e : j) {
        prune(e);
      }
    }
  };
  prune(out);
  return out;
}

// Decodes (no defaults), requires no errors, and returns the re-encoded object after checking
// that encoding again after a second decode gives the same document.
inline Json roundTrip(const Json& doc) {
  DecodedObject first = decode(doc);
  EXPECT_TRUE(first.errors.empty()) << ::testing::PrintToString(errorStrings(first.errors));
  if (!first.object) {
    return Json();
  }
  Json encoded = first.object->toJson();
  DecodedObject second = decode(encoded);
  EXPECT_TRUE(second.errors.empty()) << ::testing::PrintToString(errorStrings(second.errors));
  if (second.object) {
    EXPECT_EQ(second.object->toJson().dump(), encoded.dump());
  }
  return encoded;
}

// The value at a JSON pointer ("/spec/containers/0/ports").
inline Json at(const Json& doc, const std::string& pointer) {
  return doc.at(Json::json_pointer(pointer));
}

}  // namespace nodewright::api::testing
