#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "api/reflect/field_errors.h"
#include "api/reflect/json.h"
#include "core/error.h"

namespace nodewright::api {

struct YamlOptions {
  // Treat the documentation ellipsis ("...", "{...}", "[...]", "- { ... }") as an elided value:
  // the field is left out and its path recorded, so design documents can be checked as written.
  bool allowElisions = false;
};

// One document of a multi-document stream.
struct Document {
  size_t index = 0;  // position in the stream, from 0
  int line = 0;      // 1-based line where the document starts
  Json value;
  std::vector<std::string> elided;  // field paths left out as "..."
  FieldErrors errors;               // duplicate keys and other structural problems
};

// Parses YAML (1.1 scalars, as kubectl reads them) or JSON, one or many documents. Empty
// documents are skipped; "kind: List" objects are expanded into their items.
core::Result<std::vector<Document>> parseDocuments(std::string_view text,
                                                   const YamlOptions& options = {});

// Block-style YAML; strings that would read back as another type are quoted.
std::string toYaml(const Json& value);

}  // namespace nodewright::api
