#pragma once

#include <functional>
#include <iosfwd>
#include <optional>
#include <string>
#include <vector>

#include "api/registry.h"
#include "api/yaml.h"
#include "cmd/command.h"

namespace CLI {
class App;
}  // namespace CLI

namespace nodewright::cmd {

// One manifest source named on the command line, read and parsed.
struct ManifestFile {
  std::string name;  // as the user wrote it, "<stdin>" for "-", or the path below a directory
  std::vector<api::Document> documents;
  std::optional<std::string> error;  // "cannot read: ..." or "line N, column M: ..."
};

// The stdin name in messages.
inline constexpr const char* kStdinName = "<stdin>";

// Expands `-f` arguments: "-" reads `in` (once), a directory contributes every *.yaml, *.yml
// and *.json file below it in path order, anything else is read as a file. A source that
// cannot be read or parsed yields an entry with `error` set; the others are still read.
std::vector<ManifestFile> readManifests(const std::vector<std::string>& sources, std::istream& in,
                                        const api::YamlOptions& options);

// "apiVersion/kind" as given to --kind ("karpenter.sh/v1alpha5/Provisioner", "v1/Pod").
struct KindDefault {
  std::string apiVersion;
  std::string kind;
};
// Parses and checks --kind against the registry; nullopt with `error` set when unusable.
std::optional<KindDefault> parseKindDefault(const std::string& text, const api::Registry& registry,
                                            std::string& error);

// Sets apiVersion and kind on a document that lacks them (design documents show fragments).
void applyKindDefault(const KindDefault& kind, api::Json& document);

// Whether a document has neither metadata.name nor generateName, and neither was elided.
bool nameMissing(const api::Json& document, const std::vector<std::string>& elided);

// "Kind/name" for messages: the document's kind ("<unknown>" without one) and its
// metadata.name ("<unnamed>" without one).
std::string objectLabel(const api::Json& document);

// The manifest flags of `validate` and `convert`.
struct ManifestFlags {
  std::vector<std::string> files;  // -f
  bool strict = false;
  std::string kind;  // --kind APIVERSION/KIND
};

// Registers -f/--filename (required), --strict (described by `strictHelp`, which differs by
// command) and --kind on `sub`; `flags` must outlive the parse.
void addManifestFlags(CLI::App& sub, ManifestFlags& flags, const std::string& strictHelp);

// Reads every source of `flags` (elisions allowed unless strict) and calls `visit` for each
// document, with --kind's default applied, and its label "file:index: Kind/name". A source that
// cannot be read is reported on ctx.err and the others are still visited. kExitUsage for an
// unusable --kind; kExitOk when every source was read and every visit returned true; otherwise
// kExitFailed.
int visitManifests(const ManifestFlags& flags, Context& ctx,
                   const std::function<bool(api::Document& doc, const std::string& label)>& visit);

}  // namespace nodewright::cmd
