#include <algorithm>
#include <cctype>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/reflect/schema.h"
#include "cmd/command.h"

namespace nodewright::cmd {
namespace {

using api::reflect::FieldDesc;
using api::reflect::StructSchema;
using api::reflect::TypeKind;
using api::reflect::TypeOps;

struct ExplainOptions {
  std::string target;
  std::string apiVersion;
  bool recursive = false;
};

// Recursion stops at this depth even without a cycle; no real kind nests deeper.
constexpr int kMaxDepth = 32;

bool equalsIgnoreCase(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

const api::KindInfo* findKind(const api::Registry& registry, const std::string& name,
                              const std::string& apiVersion) {
  if (apiVersion.empty()) {
    return registry.lookup(name);
  }
  for (const api::KindInfo& k : registry.kinds()) {
    bool named = equalsIgnoreCase(k.kind, name) || equalsIgnoreCase(k.plural, name) ||
                 equalsIgnoreCase(k.singular, name) ||
                 std::any_of(k.shortNames.begin(), k.shortNames.end(),
                             [&](const std::string& s) { return equalsIgnoreCase(s, name); });
    if (named && k.apiVersion() == apiVersion) {
      return &k;
    }
  }
  return nullptr;
}

// The struct a field's value holds, through optionals, lists and maps; nullptr for scalars.
const StructSchema* structOf(const TypeOps* type) {
  while (type->kind == TypeKind::Optional || type->kind == TypeKind::Array ||
         type->kind == TypeKind::Map) {
    type = type->elem();
  }
  return type->kind == TypeKind::Struct ? &type->structSchema() : nullptr;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  size_t start = 0;
  for (size_t i = 0; i <= s.size(); ++i) {
    if (i == s.size() || s[i] == sep) {
      out.push_back(s.substr(start, i - start));
      start = i + 1;
    }
  }
  return out;
}

std::string fieldLine(const FieldDesc& f) {
  std::string line = f.name + "\t<" + f.type->typeName + ">";
  if (f.required) {
    line += " -required-";
  }
  return line;
}

void printFields(const StructSchema& s, bool recursive, int depth,
                 std::vector<const StructSchema*>& stack, std::ostream& out) {
  const std::string indent(2 * static_cast<size_t>(depth + 1), ' ');
  for (const FieldDesc& f : s.fields) {
    out << indent << fieldLine(f) << "\n";
    const StructSchema* child = structOf(f.type);
    if (!recursive) {
      if (!f.doc.empty()) {
        out << indent << "  " << f.doc << "\n";
      }
      out << "\n";
      continue;
    }
    if (child != nullptr && depth + 1 < kMaxDepth &&
        std::find(stack.begin(), stack.end(), child) == stack.end()) {
      stack.push_back(child);
      printFields(*child, recursive, depth + 1, stack, out);
      stack.pop_back();
    }
  }
}

// Follows kubectl explain's layout: header, FIELD, DESCRIPTION, then the child fields.
int explain(const ExplainOptions& o, Context& ctx) {
  std::vector<std::string> path = split(o.target, '.');
  const api::KindInfo* info = findKind(ctx.registry, path.front(), o.apiVersion);
  if (info == nullptr) {
    ctx.err << "error: the server doesn't have a resource type \"" << path.front() << "\"";
    if (!o.apiVersion.empty()) {
      ctx.err << " in " << o.apiVersion;
    }
    ctx.err << "\n";
    return kExitFailed;
  }
  const StructSchema* current = &info->type->structSchema();
  const FieldDesc* field = nullptr;
  for (size_t i = 1; i < path.size(); ++i) {
    const FieldDesc* next = current != nullptr ? current->find(path[i]) : nullptr;
    if (next == nullptr) {
      ctx.err << "error: field \"" << path[i] << "\" does not exist\n";
      return kExitFailed;
    }
    field = next;
    current = structOf(field->type);
  }

  std::ostream& out = ctx.out;
  if (!info->group.empty()) {
    out << "GROUP:      " << info->group << "\n";
  }
  out << "KIND:       " << info->kind << "\n";
  out << "VERSION:    " << info->version << "\n\n";
  if (field != nullptr) {
    out << "FIELD: " << field->name << " <" << field->type->typeName << ">\n\n";
  }
  const std::string& doc = field != nullptr ? field->doc : info->doc;
  out << "DESCRIPTION:\n    " << (doc.empty() ? "<empty>" : doc) << "\n";
  if (field == nullptr && !info->convertsTo.empty()) {
    out << "    Seed-era kind: `nodewright convert` turns it into " << info->convertsTo << ".\n";
  }
  if (field != nullptr && !field->enumValues.empty()) {
    out << "\nENUM:\n";
    for (const std::string& v : field->enumValues) {
      out << "    " << v << "\n";
    }
  }
  if (field != nullptr && field->defaultValue) {
    out << "\nDEFAULT: " << field->defaultValue->dump() << "\n";
  }
  if (current != nullptr && !current->fields.empty()) {
    out << "\nFIELDS:\n";
    std::vector<const StructSchema*> stack{current};
    printFields(*current, o.recursive, 0, stack, out);
  }
  return kExitOk;
}

}  // namespace

void addExplainCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<ExplainOptions>();
  CLI::App* sub = app.add_subcommand(
      "explain", "Describe a kind or one of its fields, like kubectl explain, from the model");
  sub->add_option("target", o->target,
                  "KIND[.field.path]: a kind, plural or short name (nodepool, ec2nc), then "
                  "fields separated by dots")
      ->required();
  sub->add_flag("--recursive", o->recursive, "List the fields of the fields, all the way down");
  sub->add_option("--api-version", o->apiVersion,
                  "Pick this group/version of the kind (karpenter.sh/v1alpha5) instead of the "
                  "newest");
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return explain(*o, ctx); }; });
}

}  // namespace nodewright::cmd
