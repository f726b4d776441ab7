#include "api/yaml_tree.h"

#include <string>
#include <unordered_map>

#include <yaml.h>

namespace nodewright::api::yaml {
namespace {

std::string at(const yaml_mark_t& mark, std::string_view problem) {
  return "line " + std::to_string(mark.line + 1) + ", column " + std::to_string(mark.column + 1) +
         ": " + std::string(problem);
}

bool isTag(const yaml_char_t* tag, std::string_view name) {
  return tag != nullptr && std::string_view(reinterpret_cast<const char*>(tag)) == name;
}

ScalarStyle scalarStyle(const yaml_event_t& event) {
  const yaml_char_t* tag = event.data.scalar.tag;
  if (tag == nullptr) {
    return event.data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? ScalarStyle::Resolve
                                                              : ScalarStyle::String;
  }
  for (std::string_view core : {YAML_INT_TAG, YAML_FLOAT_TAG, YAML_BOOL_TAG, YAML_NULL_TAG}) {
    if (isTag(tag, core)) {
      return ScalarStyle::Resolve;
    }
  }
  return ScalarStyle::String;
}

// Owns libyaml's parser and the current event.
class EventParser {
 public:
  explicit EventParser(std::string_view text) {
    yaml_parser_initialize(&parser_);
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  ~EventParser() {
    clearEvent();
    yaml_parser_delete(&parser_);
  }
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;

  core::Result<const yaml_event_t*> next() {
    clearEvent();
    if (!yaml_parser_parse(&parser_, &event_)) {
      const char* problem = parser_.problem != nullptr ? parser_.problem : "invalid YAML";
      return core::fail(core::Error::invalid(at(parser_.problem_mark, problem)));
    }
    haveEvent_ = true;
    return &event_;
  }

 private:
  void clearEvent() {
    if (haveEvent_) {
      yaml_event_delete(&event_);
      haveEvent_ = false;
    }
  }

  yaml_parser_t parser_{};
  yaml_event_t event_{};
  bool haveEvent_ = false;
};

class TreeBuilder {
 public:
  TreeBuilder(std::string_view text, size_t maxDepth) : events_(text), maxDepth_(maxDepth) {}

  core::Result<Tree> build() {
    while (true) {
      auto event = events_.next();
      if (!event) {
        return core::fail(event.error());
      }
      const yaml_event_t& e = **event;
      core::Status ok;
      switch (e.type) {
        case YAML_STREAM_END_EVENT:
          return std::move(tree_);
        case YAML_DOCUMENT_START_EVENT:
          anchors_.clear();  // anchors never reach across documents
          break;
        case YAML_SCALAR_EVENT:
          ok = scalar(e);
          break;
        case YAML_ALIAS_EVENT:
          ok = alias(e);
          break;
        case YAML_SEQUENCE_START_EVENT:
          ok = open(e, Kind::Sequence, e.data.sequence_start.anchor);
          break;
        case YAML_MAPPING_START_EVENT:
          ok = open(e, Kind::Mapping, e.data.mapping_start.anchor);
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          openFlags_[open_.back()] = false;
          open_.pop_back();
          break;
        default:
          break;
      }
      if (!ok) {
        return core::fail(ok.error());
      }
    }
  }

 private:
  uint32_t add(Node node, const yaml_event_t& e, const yaml_char_t* anchor) {
    node.line = static_cast<int>(e.start_mark.line) + 1;
    auto index = static_cast<uint32_t>(tree_.nodes.size());
    tree_.nodes.push_back(node);
    openFlags_.push_back(false);
    if (open_.empty()) {
      tree_.roots.push_back(index);
    } else {
      Node& parent = tree_.nodes[open_.back()];
      if (parent.last == kNone) {
        parent.first = index;
      } else {
        tree_.nodes[parent.last].next = index;
      }
      parent.last = index;
      ++parent.size;
    }
    if (anchor != nullptr) {
      anchors_[reinterpret_cast<const char*>(anchor)] = index;
    }
    return index;
  }

  core::Status scalar(const yaml_event_t& e) {
    if (tree_.text.size() + e.data.scalar.length > UINT32_MAX) {
      return core::fail(core::Error::invalid(at(e.start_mark, "yaml: document is too large")));
    }
    Node n;
    n.kind = Kind::Scalar;
    n.style = scalarStyle(e);
    n.tagged = e.data.scalar.tag != nullptr;
    n.text = static_cast<uint32_t>(tree_.text.size());
    n.textSize = static_cast<uint32_t>(e.data.scalar.length);
    tree_.text.append(reinterpret_cast<const char*>(e.data.scalar.value), e.data.scalar.length);
    add(n, e, e.data.scalar.anchor);
    return {};
  }

  core::Status alias(const yaml_event_t& e) {
    std::string name(reinterpret_cast<const char*>(e.data.alias.anchor));
    auto it = anchors_.find(name);
    if (it == anchors_.end()) {
      return core::fail(core::Error::invalid(
          at(e.start_mark, "yaml: unknown anchor '" + name + "' referenced")));
    }
    if (openFlags_[it->second]) {
      // go-yaml's words; expanding it would never end.
      return core::fail(core::Error::invalid(
          at(e.start_mark, "yaml: anchor '" + name + "' value contains itself")));
    }
    Node n;
    n.kind = Kind::Alias;
    n.target = it->second;
    add(n, e, nullptr);
    return {};
  }

  core::Status open(const yaml_event_t& e, Kind kind, const yaml_char_t* anchor) {
    if (open_.size() >= maxDepth_) {
      return core::fail(core::Error::invalid(
          at(e.start_mark, "yaml: exceeded max depth of " + std::to_string(maxDepth_))));
    }
    Node n;
    n.kind = kind;
    uint32_t index = add(n, e, anchor);
    openFlags_[index] = true;
    open_.push_back(index);
    return {};
  }

  EventParser events_;
  size_t maxDepth_;
  Tree tree_;
  std::vector<uint32_t> open_;     // collections not yet ended, outermost first
  std::vector<bool> openFlags_;    // per node: still open (an alias to it would be a cycle)
  std::unordered_map<std::string, uint32_t> anchors_;
};

}  // namespace

core::Result<Tree> parseTree(std::string_view text, size_t maxDepth) {
  return TreeBuilder(text, maxDepth).build();
}

}  // namespace nodewright::api::yaml
