#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/error.h"

// The first stage of YAML loading: libyaml's event parser builds a compact node tree in which
// an alias is a reference to its anchor's node, never a copy, so a document of nested aliases
// costs memory in proportion to its text. Expansion, and its budget, happen when the tree is
// converted to JSON (yaml.cc). Internal to api/.
namespace nodewright::api::yaml {

inline constexpr uint32_t kNone = UINT32_MAX;

enum class Kind : uint8_t { Scalar, Sequence, Mapping, Alias };

// How a scalar's text becomes a value.
enum class ScalarStyle : uint8_t {
  Resolve,  // plain without a tag, or tagged !!int/!!float/!!bool/!!null: YAML 1.1 resolution
  String,   // quoted, or tagged !!str, "!" or any other tag
};

struct Node {
  Kind kind = Kind::Scalar;
  ScalarStyle style = ScalarStyle::String;
  bool tagged = false;        // an explicit tag was written
  uint32_t first = kNone;     // collections: first child (mappings: key, value, key, ...)
  uint32_t last = kNone;      // collections: last child, for appending
  uint32_t next = kNone;      // next sibling
  uint32_t target = kNone;    // aliases: the anchored node
  uint32_t size = 0;          // collections: number of children
  uint32_t text = 0;          // scalars: offset of the value in Tree::text
  uint32_t textSize = 0;
  int line = 0;  // 1-based
};

struct Tree {
  std::vector<Node> nodes;
  std::vector<uint32_t> roots;  // one per document, in stream order
  std::string text;             // every scalar's value, back to back

  std::string_view scalar(const Node& n) const { return {text.data() + n.text, n.textSize}; }
};

// Parses a YAML stream. Fails with "line L, column C: problem" on a syntax error, and on what
// go-yaml refuses before decoding: nesting deeper than maxDepth ("yaml: exceeded max depth of
// 10000"), an alias to an unknown anchor, or an alias inside its own anchor.
core::Result<Tree> parseTree(std::string_view text, size_t maxDepth);

}  // namespace nodewright::api::yaml
