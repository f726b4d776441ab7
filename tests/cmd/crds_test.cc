#include <set>

#include <gtest/gtest.h>

#include "api/crd/generate.h"
#include "api/crd/test_kinds.h"
#include "api/yaml.h"
#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

using testing::Ran;
using testing::ScratchDir;

size_t customGroupKinds(const api::Registry& registry) {
  std::set<std::string> groupKinds;
  for (const api::KindInfo& k : registry.kinds()) {
    if (k.custom) {
      groupKinds.insert(k.group + "/" + k.kind);
    }
  }
  return groupKinds.size();
}

TEST(CrdsCommandTest, PrintsOneCrdPerCustomGroupAndKind) {
  Ran r = testing::runCmd({"crds"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  auto docs = api::parseDocuments(r.out);
  ASSERT_TRUE(docs) << docs.error().message();
  EXPECT_EQ(docs->size(), customGroupKinds(api::builtinRegistry()));
  std::set<std::string> names;
  for (const api::Document& d : *docs) {
    EXPECT_EQ(d.value["apiVersion"], "apiextensions.k8s.io/v1");
    EXPECT_EQ(d.value["kind"], "CustomResourceDefinition");
    EXPECT_TRUE(names.insert(d.value["metadata"]["name"].get<std::string>()).second);
  }
}

TEST(CrdsCommandTest, PrintsExactlyTheGeneratorsStream) {
  Ran r = testing::runWith(testkinds::testRegistry(), {"crds"});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, api::crd::crdStream(testkinds::testRegistry()));
  EXPECT_EQ(r.out.rfind("---\napiVersion: apiextensions.k8s.io/v1\n", 0), 0u);
}

TEST(CrdsCommandTest, OutputDirGetsOneFilePerCrdAndAKustomization) {
  ScratchDir dir;
  const std::string out = (dir.path() / "crds").string();
  Ran r = testing::runWith(testkinds::testRegistry(), {"crds", "--output-dir", out});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, "wrote 2 CRDs and kustomization.yaml to " + out + "\n");
  for (const auto& [name, text] : api::crd::crdFiles(testkinds::testRegistry())) {
    EXPECT_EQ(testing::readFile(dir.path() / "crds" / name), text) << name;
  }
}

TEST(CrdsCommandTest, OutputDirDropsStaleGeneratedFilesButKeepsOthers) {
  ScratchDir dir;
  std::string stale =
      dir.write("crds/test.nodewright.io_gizmos.yaml", std::string(api::crd::kGeneratedHeader));
  std::string mine = dir.write("crds/my-notes.yaml", "# hand written\n");
  Ran r = testing::runWith(testkinds::testRegistry(),
                           {"crds", "--output-dir", (dir.path() / "crds").string()});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(std::filesystem::exists(stale));
  EXPECT_EQ(testing::readFile(mine), "# hand written\n");
}

TEST(CrdsCommandTest, UnwritableOutputDirExitsOne) {
  ScratchDir dir;
  std::string file = dir.write("plain-file", "x");
  Ran r = testing::runWith(testkinds::testRegistry(), {"crds", "--output-dir", file + "/crds"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: creating " + file + "/crds: ", 0), 0u) << r.err;
}

}  // namespace
}  // namespace nodewright::cmd
