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
  ManifestFlags manifests;
  std::string output = "yaml";
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
  const bool strict = o.manifests.strict;
  std::vector<api::Json> objects;
  const int read = visitManifests(
      o.manifests, ctx, [strict, &objects, &ctx](api::Document& doc, const std::string& label) {
        Outcome outcome = convertDocument(doc, strict, ctx.registry);
        if (!strict && nameMissing(doc.value, doc.elided)) {
          ctx.err << label << ": warning: metadata.name: " << api::fielderr::required() << "\n";
        }
        for (const api::FieldError& e : outcome.errors) {
          ctx.err << label << ": " << e.toString() << "\n";
        }
        objects.push_back(std::move(outcome.value));
        return outcome.errors.empty();
      });
  // All or nothing: half a conversion would read as a complete one.
  if (read != kExitOk) {
    return read;
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
  addManifestFlags(*sub, o->manifests,
                   "Reject the documentation ellipsis \"...\" and objects without metadata.name");
  sub->add_option("-o,--output", o->output, "Output format")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str();
  sub->callback([o, &ctx, &action] { action = [o, &ctx] { return convert(*o, ctx); }; });
}

}  // namespace nodewright::cmd
