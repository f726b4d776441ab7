#pragma once

#include <functional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "api/object.h"
#include "api/yaml.h"

// Decoding helpers shared by the Cluster API and CAPZ tests: manifest text -> defaulted,
// validated objects, and errors as the "path: message" strings users see.
namespace nodewright::api::capi::testing {

inline std::vector<std::string> errorStrings(const FieldErrors& errors) {
  std::vector<std::string> out;
  out.reserve(errors.size());
  for (const FieldError& e : errors) {
    out.push_back(e.toString());
  }
  return out;
}

// The documents of a YAML stream as JSON; fails the test when the stream does not parse.
inline std::vector<Json> documents(std::string_view yaml) {
  auto docs = parseDocuments(yaml);
  std::vector<Json> out;
  if (!docs) {
    ADD_FAILURE() << "unparsable YAML: " << docs.error().message();
    return out;
  }
  for (const Document& d : *docs) {
    EXPECT_EQ(errorStrings(d.errors), std::vector<std::string>{}) << "document " << d.index;
    out.push_back(d.value);
  }
  return out;
}

// The single document of `yaml`.
inline Json document(std::string_view yaml) {
  std::vector<Json> docs = documents(yaml);
  EXPECT_EQ(docs.size(), 1u);
  return docs.empty() ? Json() : docs.front();
}

inline DecodedObject decode(const Json& doc) {
  return decodeObject(doc, builtinRegistry());
}

// The decoded object as T, failing the test when decoding reported anything.
template <class T>
T decodeValid(const Json& doc) {
  DecodedObject d = decode(doc);
  EXPECT_EQ(errorStrings(d.errors), std::vector<std::string>{})
      << doc.value("kind", "") << " " << doc["metadata"].value("name", "");
  if (!d.object || d.object->as<T>() == nullptr) {
    ADD_FAILURE() << "no object of the expected kind";
    return T{};
  }
  return *d.object->as<T>();
}

// One invalid manifest: a valid base document, an edit that breaks it, and every error the
// decode must report, in order.
struct InvalidCase {
  std::string name;
  const char* base;
  std::function<void(Json&)> edit;
  std::vector<std::string> errors;
};

// Test output names the case instead of dumping its bytes.
inline void PrintTo(const InvalidCase& c, std::ostream* os) {
  *os << c.name;
}

inline std::string caseName(const ::testing::TestParamInfo<InvalidCase>& info) {
  return info.param.name;
}

}  // namespace nodewright::api::capi::testing
