#include <fstream>
#include <sstream>
#include <string>
#include <system_error>
#include <vector>

#include "cmd/reference/reference.h"

namespace nodewright::cmd::reference {
namespace {

namespace fs = std::filesystem;

bool isGenerated(const fs::path& path) {
  std::ifstream file(path, std::ios::binary);
  std::string first;
  std::getline(file, first);
  return file && first + "\n" == kGeneratedHeader;
}

std::string relativeName(const fs::path& path, const fs::path& dir) {
  return path.lexically_relative(dir).generic_string();
}

}  // namespace

std::string cell(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    if (c == '|') {
      out += "\\|";
    } else if (c == '\n') {
      out += ' ';
    } else {
      out += c;
    }
  }
  return out;
}

std::string indexMarkdown(const std::vector<KindPage>& pages) {
  std::ostringstream out;
  out << kGeneratedHeader << "\n# Reference\n\n"
      << "Generated from the binary itself, so it cannot fall behind: a test fails when a flag "
         "or field changes without `nodewright docs --output-dir docs/reference` being run.\n\n"
      << "- [flags.md](flags.md): every command and flag.\n"
      << "- One page per kind below: every field path (`[]` is a list item, `[*]` a map value) "
         "with its type, default, constraints and documentation, as `nodewright explain` and "
         "the CRD schemas see them.\n\n"
      << "## Drift classes\n\n"
      << "The `drift` column of a kind served from a CRD says what a change to a `spec` field "
         "does to nodes already launched (see [concepts](../concepts.md#drift)):\n\n"
      << "- **static**: part of the drift hash; changing it marks the nodes launched from the "
         "old value Drifted, and disruption replaces them. Applies to NodePool "
         "`spec.template` and EC2NodeClass `spec`.\n"
      << "- **dynamic**: a selector or requirement; nodes drift only when resolving it again "
         "gives an answer the node no longer matches (another subnet, security group or AMI).\n"
      << "- **behavioral**: changes how the controllers act from now on (NodePool "
         "weight, limits, disruption); never drifts a node.\n\n"
      << "A field inherits the least static class of the fields above it.\n\n"
      << "## Kinds\n\n"
      << "| kind | apiVersion | short names | page |\n| --- | --- | --- | --- |\n";
  for (const KindPage& p : pages) {
    std::string shortNames;
    for (const std::string& s : p.kind->shortNames) {
      shortNames += (shortNames.empty() ? "`" : ", `") + s + "`";
    }
    out << "| " << p.kind->kind << " | `" << p.kind->apiVersion() << "` | " << shortNames << " | ["
        << p.path << "](" << p.path << ") |\n";
  }
  return out.str();
}

Files generate(CLI::App& root, const api::Registry& registry) {
  Files files;
  files["flags.md"] = flagsMarkdown(root);
  std::vector<KindPage> pages = kindPages(registry);
  files["README.md"] = indexMarkdown(pages);
  for (KindPage& p : pages) {
    files[p.path] = std::move(p.text);
  }
  return files;
}

core::Result<size_t> write(const Files& files, const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) {
    return core::fail(core::Error::internal("creating " + dir.string() + ": " + ec.message()));
  }
  // Collected first: removing entries while a directory iterator walks them is unspecified.
  std::vector<fs::path> stale;
  for (fs::recursive_directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    const fs::path path = it->path();
    if (it->is_regular_file() && files.count(relativeName(path, dir)) == 0 && isGenerated(path)) {
      stale.push_back(path);
    }
  }
  if (ec) {
    return core::fail(core::Error::internal("listing " + dir.string() + ": " + ec.message()));
  }
  for (const fs::path& path : stale) {
    fs::remove(path, ec);
    if (ec) {
      return core::fail(core::Error::internal("removing " + path.string() + ": " + ec.message()));
    }
  }
  for (const auto& [name, text] : files) {
    const fs::path path = dir / name;
    fs::create_directories(path.parent_path(), ec);
    if (ec) {
      return core::fail(
          core::Error::internal("creating " + path.parent_path().string() + ": " + ec.message()));
    }
    std::ofstream file(path, std::ios::binary | std::ios::trunc);
    file << text;
    file.close();
    if (!file) {
      return core::fail(core::Error::internal("writing " + path.string()));
    }
  }
  return files.size();
}

}  // namespace nodewright::cmd::reference
