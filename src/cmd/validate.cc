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

// Decodes every document as the API server would and reports each problem with its document
// and field path. Default mode reads design documents as written (elisions, no names); --strict
// is what kube-apiserver would say.
int validate(const ManifestFlags& o, Context& ctx) {
  return visitManifests(o, ctx, [&o, &ctx](api::Document& doc, const std::string& label) {
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
      return true;
    }
    for (const api::FieldError& e : errors) {
      ctx.err << label << ": " << e.toString() << "\n";
    }
    return false;
  });
}

}  // namespace

void addValidateCommand(CLI::App& app, Context& ctx, Action& action) {
  auto o = std::make_shared<ManifestFlags>();
  CLI::App* sub = app.add_subcommand(
      "validate",
      "Check manifests against the resource model: strict decoding, defaults and validation");
  addManifestFlags(*sub, *o,
                   "Reject the documentation ellipsis \"...\" and objects without metadata.name, "
                   "as the API server would");
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return validate(*o, ctx); }; });
}

}  // namespace nodewright::cmd
