#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "api/object.h"
#include "cmd/command.h"
#include "cmd/manifest_input.h"

namespace nodewright::cmd {
namespace {

struct ValidateOptions {
  std::vector<std::string> files;
  bool strict = false;
  std::string kind;
};

// Decodes every document as the API server would and reports each problem with its document
// and field path. Default mode reads design documents as written (elisions, no names); --strict
// is what kube-apiserver would say.
int validate(const ValidateOptions& o, Context& ctx) {
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
      api::ObjectOptions options;
      options.elided = doc.elided;
      options.requireName = o.strict;
      api::DecodedObject decoded = api::decodeObject(doc.value, ctx.registry, options);
      api::FieldErrors errors = doc.errors;
      errors.insert(errors.end(), decoded.errors.begin(), decoded.errors.end());
      if (!o.strict && decoded.object && nameMissing(doc.value, doc.elided)) {
        ctx.err << label << ": warning: metadata.name: " << api::fielderr::required() << "\n";
      }
      if (errors.empty()) {
        ctx.out << label << ": valid\n";
        continue;
      }
      ok = false;
      for (const api::FieldError& e : errors) {
        ctx.err << label << ": " << e.toString() << "\n";
      }
    }
  }
  return ok ? kExitOk : kExitFailed;
}

}  // namespace

void addValidateCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<ValidateOptions>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Check manifests against the resource model: strict decoding, defaults and validation");
  sub->add_option("-f,--filename", o->files,
                  "A file, a directory (every *.yaml, *.yml and *.json below it) or - for stdin; "
                  "repeatable")
      ->required();
  sub->add_flag("--strict", o->strict,
                "Reject the documentation ellipsis \"...\" and objects without metadata.name, as "
                "the API server would");
  sub->add_option("--kind", o->kind,
                  "APIVERSION/KIND for documents that lack apiVersion and kind, e.g. "
                  "karpenter.sh/v1alpha5/Provisioner");
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return validate(*o, ctx); }; });
}

}  // namespace nodewright::cmd
