// deploy/crds/ is what users apply; it must be exactly what the model generates.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "api/crd/generate.h"
#include "api/yaml.h"

namespace nodewright::api::crd {
namespace {

namespace fs = std::filesystem;

constexpr const char* kStale =
    "deploy/crds is stale: run `nodewright crds --output-dir deploy/crds`";

const fs::path kCrdDir = fs::path(NW_SOURCE_DIR) / "deploy" / "crds";

std::string readFile(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

TEST(CheckedInCrdsTest, MatchTheModelExactly) {
  const std::map<std::string, std::string> expected = crdFiles(builtinRegistry());
  for (const auto& [name, text] : expected) {
    fs::path p = kCrdDir / name;
    if (!fs::exists(p)) {
      ADD_FAILURE() << kStale << " (" << name << " is missing)";
      continue;
    }
    EXPECT_TRUE(readFile(p) == text) << kStale << " (" << name << " differs)";
  }
  for (const fs::directory_entry& entry : fs::directory_iterator(kCrdDir)) {
    std::string name = entry.path().filename().string();
    EXPECT_TRUE(expected.count(name) == 1)
        << kStale << " (" << name << " is not generated: remove it)";
  }
}

// Offline rendering, as a user would check the directory before applying it.
TEST(CheckedInCrdsTest, RenderWithKubectlKustomize) {
  const char* kubectl = "/usr/bin/kubectl";
  // kubectl is a required test peer (DESIGN.md); its absence is a failure, not a skip.
  ASSERT_EQ(access(kubectl, X_OK), 0) << kubectl << " is not installed";
  std::string command = std::string(kubectl) + " kustomize " + kCrdDir.string() + " 2>&1";
  FILE* pipe = popen(command.c_str(), "r");
  ASSERT_NE(pipe, nullptr);
  std::string output;
  char buf[65536];
  for (size_t n; (n = fread(buf, 1, sizeof buf, pipe)) > 0;) {
    output.append(buf, n);
  }
  int status = pclose(pipe);
  ASSERT_EQ(status, 0) << output;

  auto docs = parseDocuments(output);
  ASSERT_TRUE(docs) << docs.error().message();
  std::set<std::string> rendered;
  for (const Document& d : *docs) {
    EXPECT_EQ(d.value["kind"], "CustomResourceDefinition");
    rendered.insert(d.value["metadata"]["name"].get<std::string>());
  }
  std::set<std::string> generated;
  for (const Json& crd : generateCrds(builtinRegistry())) {
    generated.insert(crd["metadata"]["name"].get<std::string>());
  }
  EXPECT_EQ(rendered, generated);
}

}  // namespace
}  // namespace nodewright::api::crd
