#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/conversion/convert.h"
#include "api/object.h"
#include "cmd/command.h"
#include "cmd/manifest_input.h"

namespace nodewright::cmd {
namespace {

struct ConvertOptions {
  std::vector<std::string> files;
  std::string output = "yaml";
  bool strict = false;
  std::string kind;
};

// The document as it should be written, or every reason it cannot be.
struct Outcome {
  api::Json value;
  api::FieldErrors errors;
};

// Seed-era kinds become their v1 kinds; kinds the model knows are checked and passed through
// unchanged; kinds it does not know (a Deployment beside a NodePool) pass through untouched.
Outcome convertDocument(const api::Document& doc, bool strict, const api::Registry& registry) {
  Outcome out;
  out.errors = doc.errors;
  const api::Json& v = doc.value;
  api::ObjectOptions options;
  options.elided = doc.elided;
  options.requireName = strict;
  const api::KindInfo* info = nullptr;
  if (v.is_object() && v.contains("apiVersion") && v["apiVersion"].is_string() &&
      v.contains("kind") && v["kind"].is_string()) {
    info = registry.find(v["apiVersion"].get<std::string>(), v["kind"].get<std::string>());
  }
  if (info != nullptr && !info->convertsTo.empty()) {
    auto converted = api::conversion::convertToV1Fields(v, options);
    if (converted) {
      out.value = std::move(*converted);
    } else {
      out.errors.insert(out.errors.end(), converted.error().begin(), converted.error().end());
    }
    return out;
  }
  if (info != nullptr) {
    api::DecodedObject decoded = api::decodeObject(v, registry, options);
    out.errors.insert(out.errors.end(), decoded.errors.begin(), decoded.errors.end());
  }
  out.value = v;
  return out;
}

void write(const std::vector<api::Json>& objects, const std::string& format, std::ostream& out) {
  if (format == "json") {
    if (objects.size() == 1) {
      out << objects.front().dump(2, ' ', false, api::Json::error_handler_t::replace) << "\n";
      return;
    }
    api::Json list = api::Json::object();
    list["apiVersion"] = "v1";
    list["kind"] = "List";
    list["items"] = objects;
    out << list.dump(2, ' ', false, api::Json::error_handler_t::replace) << "\n";
    return;
  }
  for (size_t i = 0; i < objects.size(); ++i) {
    if (i > 0) {
      out << "---\n";
    }
    out << api::toYaml(objects[i]);
  }
}

int convert(const ConvertOptions& o, Context& ctx) {
  std::optional<KindDefault> kindDefault;
  if (!o.kind.empty()) {
    std::string error;
    kindDefault = parseKindDefault(o.kind, ctx.registry, error);
    if (!kindDefault) {
      ctx.err << "error: " << error << "\n";
      return kExitUsage;
    }
  }
  api::YamlOptions yamlOptions;
  yamlOptions.allowElisions = !o.strict;
  bool ok = true;
  std::vector<api::Json> objects;
  for (ManifestFile& file : readManifests(o.files, ctx.in, yamlOptions)) {
    if (file.error) {
      ctx.err << file.name << ": " << *file.error << "\n";
      ok = false;
      continue;
    }
    for (api::Document& doc : file.documents) {
      if (kindDefault) {
        applyKindDefault(*kindDefault, doc.value);
      }
      const std::string label =
          file.name + ":" + std::to_string(doc.index) + ": " + objectLabel(doc.value);
      Outcome outcome = convertDocument(doc, o.strict, ctx.registry);
      if (!o.strict && nameMissing(doc.value, doc.elided)) {
        ctx.err << label << ": warning: metadata.name: " << api::fielderr::required() << "\n";
      }
      for (const api::FieldError& e : outcome.errors) {
        ctx.err << label << ": " << e.toString() << "\n";
      }
      ok = ok && outcome.errors.empty();
      objects.push_back(std::move(outcome.value));
    }
  }
  // All or nothing: half a conversion would read as a complete one.
  if (!ok) {
    return kExitFailed;
  }
  write(objects, o.output, ctx.out);
  return kExitOk;
}

}  // namespace

void addConvertCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<ConvertOptions>();
  CLI::App* sub = app.add_subcommand(
      "convert",
      "Convert seed-era kinds (Provisioner, Machine, AWSNodeTemplate) to their v1 kinds; other "
      "documents pass through unchanged");
  sub->add_option("-f,--filename", o->files,
                  "A file, a directory (every *.yaml, *.yml and *.json below it) or - for stdin; "
                  "repeatable")
      ->required();
  sub->add_option("-o,--output", o->output, "Output format")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  sub->add_flag("--strict", o->strict,
                "Reject the documentation ellipsis \"...\" and objects without metadata.name");
  sub->add_option("--kind", o->kind,
                  "APIVERSION/KIND for documents that lack apiVersion and kind, e.g. "
                  "karpenter.sh/v1alpha5/Provisioner");
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return convert(*o, ctx); }; });
}

}  // namespace nodewright::cmd
