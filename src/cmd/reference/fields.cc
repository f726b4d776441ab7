#include <algorithm>
#include <cctype>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "api/reflect/schema.h"
#include "cmd/reference/reference.h"
#include "core/text.h"

namespace nodewright::cmd::reference {
namespace {

using api::reflect::Drift;
using api::reflect::FieldDesc;
using api::reflect::ListType;
using api::reflect::StructSchema;
using api::reflect::TypeKind;
using api::reflect::TypeOps;

// No kind nests deeper; a guard against a type that refers to itself through a container.
constexpr size_t kMaxDepth = 32;

const char* driftName(Drift d) {
  switch (d) {
    case Drift::Static:
      return "static";
    case Drift::Dynamic:
      return "dynamic";
    case Drift::Behavioral:
      return "behavioral";
  }
  return "static";
}

std::string code(const std::string& text) {
  return "`" + text + "`";
}

std::string joinCodes(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& i : items) {
    out += (out.empty() ? "" : ", ") + code(i);
  }
  return out;
}

std::string constraints(const FieldDesc& f) {
  std::vector<std::string> parts;
  if (f.required) {
    parts.push_back("required");
  }
  if (!f.enumValues.empty()) {
    parts.push_back("one of " + joinCodes(f.enumValues));
  }
  if (f.minimum) {
    parts.push_back(">= " + std::to_string(*f.minimum));
  }
  if (f.maximum) {
    parts.push_back("<= " + std::to_string(*f.maximum));
  }
  if (f.minItems) {
    parts.push_back("at least " + std::to_string(*f.minItems) + " items");
  }
  if (f.maxItems) {
    parts.push_back("at most " + std::to_string(*f.maxItems) + " items");
  }
  if (f.maxLength) {
    parts.push_back("at most " + std::to_string(*f.maxLength) + " characters");
  }
  if (!f.pattern.empty()) {
    parts.push_back("pattern " + code(f.pattern));
  }
  if (!f.format.empty()) {
    parts.push_back("format " + code(f.format));
  }
  if (f.listType == ListType::Set) {
    parts.push_back("set (order ignored)");
  } else if (f.listType == ListType::Map) {
    parts.push_back("keyed by " + joinCodes(f.listMapKeys));
  }
  if (f.sensitive) {
    parts.push_back("sensitive (shown by digest only)");
  }
  std::string out;
  for (const std::string& p : parts) {
    out += (out.empty() ? "" : "; ") + p;
  }
  return out;
}

class FieldTable {
 public:
  explicit FieldTable(bool showDrift) : showDrift_(showDrift) {}

  void walk(const StructSchema& s, const std::string& prefix, Drift inherited) {
    for (const FieldDesc& f : s.fields) {
      const std::string path = prefix.empty() ? f.name : prefix + "." + f.name;
      const Drift drift = std::max(inherited, f.drift);
      row(path, f.type->typeName, driftCell(path, drift),
          f.defaultValue ? code(api::dumpJson(*f.defaultValue)) : "", constraints(f), f.doc);
      std::string suffix;
      const TypeOps* type = f.type;
      while (type->kind == TypeKind::Optional || type->kind == TypeKind::Array ||
             type->kind == TypeKind::Map) {
        suffix += type->kind == TypeKind::Array ? "[]" : type->kind == TypeKind::Map ? "[*]" : "";
        type = type->elem();
      }
      if (type->kind != TypeKind::Struct) {
        continue;
      }
      const StructSchema* child = &type->structSchema();
      if (stack_.size() < kMaxDepth &&
          std::find(stack_.begin(), stack_.end(), child) == stack_.end()) {
        stack_.push_back(child);
        walk(*child, path + suffix, drift);
        stack_.pop_back();
      }
    }
    // Recognised only to be refused (fixed IPs and the like): a user porting a manifest
    // looks them up here.
    std::map<std::string, std::string> refused(s.forbidden.begin(), s.forbidden.end());
    for (const auto& [name, reason] : refused) {
      row(prefix.empty() ? name : prefix + "." + name, "", "", "", "refused: " + reason, "");
    }
  }

  std::string text() const {
    std::string head = showDrift_
                           ? "| field | type | drift | default | constraints | description |\n"
                             "| --- | --- | --- | --- | --- | --- |\n"
                           : "| field | type | default | constraints | description |\n"
                             "| --- | --- | --- | --- | --- |\n";
    return head + rows_.str();
  }

 private:
  // Drift concerns what a node was launched from: the spec, never metadata or status.
  std::string driftCell(const std::string& path, Drift drift) const {
    return path.rfind("spec.", 0) == 0 ? driftName(drift) : "";
  }

  void row(const std::string& path, const std::string& type, const std::string& drift,
           const std::string& defaultValue, const std::string& constraintText,
           const std::string& doc) {
    rows_ << "| " << code(path) << " | " << (type.empty() ? "" : code(type)) << " | ";
    if (showDrift_) {
      rows_ << drift << " | ";
    }
    rows_ << cell(defaultValue) << " | " << cell(constraintText) << " | " << cell(doc) << " |\n";
  }

  bool showDrift_;
  std::vector<const StructSchema*> stack_;
  std::ostringstream rows_;
};

std::string page(const api::KindInfo& k) {
  std::ostringstream out;
  out << kGeneratedHeader << "\n# " << k.kind << " (" << k.apiVersion() << ")\n\n";
  if (!k.doc.empty()) {
    out << k.doc << "\n\n";
  }
  out << "- apiVersion `" << k.apiVersion() << "`, kind `" << k.kind << "`, plural `" << k.plural
      << "`";
  if (!k.shortNames.empty()) {
    out << ", short names " << joinCodes(k.shortNames);
  }
  out << "\n- " << (k.namespaced ? "namespaced" : "cluster-scoped")
      << (k.custom ? ", served from a CustomResourceDefinition" : ", a built-in kind") << "\n";
  if (!k.convertsTo.empty()) {
    out << "- seed-era kind: `nodewright convert` turns it into " << k.convertsTo << "\n";
  }
  out << "\n";
  FieldTable table(k.custom);
  table.walk(k.type->structSchema(), "", Drift::Static);
  out << table.text();
  return out.str();
}

std::string groupName(const api::KindInfo& k) {
  return k.group.empty() ? "core" : k.group;
}

}  // namespace

std::vector<KindPage> kindPages(const api::Registry& registry) {
  std::map<std::string, int> versions;
  for (const api::KindInfo& k : registry.kinds()) {
    ++versions[groupName(k) + "_" + core::lowerAscii(k.kind)];
  }
  std::vector<KindPage> pages;
  for (const api::KindInfo& k : registry.kinds()) {
    std::string name = groupName(k) + "_" + core::lowerAscii(k.kind);
    if (versions[name] > 1) {
      name = groupName(k) + "_" + k.version + "_" + core::lowerAscii(k.kind);
    }
    pages.push_back(KindPage{&k, "fields/" + name + ".md", page(k)});
  }
  std::sort(pages.begin(), pages.end(),
            [](const KindPage& a, const KindPage& b) { return a.path < b.path; });
  return pages;
}

}  // namespace nodewright::cmd::reference
