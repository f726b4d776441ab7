// docs/reference/ is what users read; like deploy/crds it must be exactly what the binary
// generates, so a flag or field added without regenerating it fails here.
#include <filesystem>
#include <set>
#include <string>

#include <gtest/gtest.h>

#include "cmd/reference/reference.h"
#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

namespace fs = std::filesystem;
using testing::Ran;
using testing::ScratchDir;

constexpr const char* kStale =
    "docs/reference is stale: run `build/nodewright docs --output-dir docs/reference`";

const fs::path kCheckedIn = fs::path(NW_SOURCE_DIR) / "docs" / "reference";

std::set<std::string> filesUnder(const fs::path& dir) {
  std::set<std::string> names;
  if (!fs::exists(dir)) {
    return names;
  }
  for (const fs::directory_entry& e : fs::recursive_directory_iterator(dir)) {
    if (e.is_regular_file()) {
      names.insert(e.path().lexically_relative(dir).generic_string());
    }
  }
  return names;
}

// The table row of `name` in the `## heading` section of a generated page; "" if absent.
std::string rowIn(const std::string& text, const std::string& heading, const std::string& name) {
  size_t section = text.find("\n## " + heading + "\n");
  if (section == std::string::npos) {
    return "";
  }
  size_t end = text.find("\n## ", section + 1);
  size_t at = text.find("| " + name + " |", section);
  if (at == std::string::npos || (end != std::string::npos && at > end)) {
    return "";
  }
  return text.substr(at, text.find('\n', at) - at);
}

std::string rowOf(const std::string& text, const std::string& field) {
  size_t at = text.find("| `" + field + "` |");
  return at == std::string::npos ? "" : text.substr(at, text.find('\n', at) - at);
}

class DocsCommandTest : public ::testing::Test {
 protected:
  void SetUp() override {
    Ran r = testing::runCmd({"docs", "--output-dir", out().string()});
    ASSERT_EQ(r.code, 0) << r.err;
    EXPECT_EQ(r.err, "");
    EXPECT_EQ(r.out.rfind("wrote ", 0), 0u) << r.out;
  }

  fs::path out() const { return dir_.path() / "reference"; }
  std::string read(const std::string& name) const { return testing::readFile(out() / name); }

  ScratchDir dir_;
};

TEST_F(DocsCommandTest, CheckedInReferenceIsExactlyWhatTheBinaryGenerates) {
  const std::set<std::string> generated = filesUnder(out());
  const std::set<std::string> checkedIn = filesUnder(kCheckedIn);
  for (const std::string& name : generated) {
    if (checkedIn.count(name) == 0) {
      ADD_FAILURE() << kStale << " (" << name << " is missing)";
      continue;
    }
    EXPECT_TRUE(read(name) == testing::readFile(kCheckedIn / name))
        << kStale << " (" << name << " differs)";
  }
  for (const std::string& name : checkedIn) {
    EXPECT_EQ(generated.count(name), 1u) << kStale << " (" << name << " is not generated)";
  }
}

TEST_F(DocsCommandTest, FlagsNameEveryCommandWithItsFlags) {
  const std::string flags = read("flags.md");
  EXPECT_EQ(flags.rfind(reference::kGeneratedHeader, 0), 0u);
  const std::string clusterName = rowIn(flags, "nodewright controller", "`--cluster-name`");
  EXPECT_NE(clusterName.find("CLUSTER_NAME"), std::string::npos) << clusterName;
  EXPECT_NE(rowIn(flags, "nodewright controller", "`--cluster-endpoint`").find("CLUSTER_ENDPOINT"),
            std::string::npos);
  EXPECT_NE(rowIn(flags, "nodewright controller", "`--batch-idle-duration`").find("| `1` |"),
            std::string::npos);
  EXPECT_NE(rowIn(flags, "nodewright up", "`--data-dir`").find("`.nodewright`"), std::string::npos);
  EXPECT_NE(rowIn(flags, "nodewright drift explain", "`NODECLAIM`").find("Required."),
            std::string::npos);
  EXPECT_NE(rowIn(flags, "nodewright", "`--log-format`").find("`console`"), std::string::npos);
  for (const char* command : {"## nodewright emulate ec2\n", "## nodewright emulate azure\n",
                              "## nodewright disruption plan\n", "## nodewright docs\n"}) {
    EXPECT_NE(flags.find(command), std::string::npos) << command;
  }
}

TEST_F(DocsCommandTest, ParsedValuesNeverReadAsDefaults) {
  // This run's own --output-dir was parsed; the reference must show the flag unset.
  const std::string row = rowIn(read("flags.md"), "nodewright docs", "`--output-dir`");
  ASSERT_NE(row, "");
  EXPECT_EQ(row.find(dir_.path().string()), std::string::npos) << row;
  EXPECT_NE(row.find("| TEXT |  |"), std::string::npos) << row;
}

TEST_F(DocsCommandTest, KindPagesCarryDriftClassDefaultsAndConstraints) {
  const std::string pool = read("fields/karpenter.sh_nodepool.md");
  EXPECT_NE(rowOf(pool, "spec.weight").find("| behavioral |"), std::string::npos);
  EXPECT_NE(rowOf(pool, "spec.template.spec.requirements").find("| dynamic |"), std::string::npos);
  // A field under a dynamic one is no more static than its parent.
  EXPECT_NE(rowOf(pool, "spec.template.spec.requirements[].key").find("| dynamic |"),
            std::string::npos);
  EXPECT_NE(rowOf(pool, "spec.disruption.budgets[].nodes").find("| behavioral |"),
            std::string::npos);
  EXPECT_NE(rowOf(pool, "spec.template.spec.expireAfter").find("| static | `\"720h\"` |"),
            std::string::npos);
  // Metadata and status are not what a node was launched from: no drift class.
  EXPECT_NE(rowOf(pool, "metadata.name").find("| `string` |  |"), std::string::npos);

  const std::string nodeClass = read("fields/karpenter.k8s.aws_ec2nodeclass.md");
  EXPECT_NE(rowOf(nodeClass, "spec.networkInterfaces[].deviceIndex").find("| static |"),
            std::string::npos);
  EXPECT_NE(rowOf(nodeClass, "spec.networkInterfaces[].deleteOnTermination").find("| behavioral |"),
            std::string::npos);
  EXPECT_NE(rowOf(nodeClass, "spec.subnetSelectorTerms").find("required"), std::string::npos);

  const std::string index = read("README.md");
  EXPECT_NE(index.find("[fields/karpenter.sh_nodepool.md](fields/karpenter.sh_nodepool.md)"),
            std::string::npos);
  EXPECT_NE(index.find("[fields/core_pod.md](fields/core_pod.md)"), std::string::npos);
}

TEST_F(DocsCommandTest, RegeneratingDropsStaleGeneratedPagesButKeepsOthers) {
  const std::string stale = dir_.write("reference/fields/gone_kind.md",
                                       std::string(reference::kGeneratedHeader) + "old\n");
  const std::string mine = dir_.write("reference/notes.md", "# hand written\n");
  const std::string before = read("flags.md");
  Ran r = testing::runCmd({"docs", "--output-dir", out().string()});
  ASSERT_EQ(r.code, 0) << r.err;
  EXPECT_FALSE(fs::exists(stale));
  EXPECT_EQ(testing::readFile(mine), "# hand written\n");
  EXPECT_EQ(read("flags.md"), before);
}

TEST(DocsCommandUsageTest, OutputDirIsRequired) {
  Ran r = testing::runCmd({"docs"});
  EXPECT_EQ(r.code, 2);
  EXPECT_NE(r.err.find("--output-dir"), std::string::npos) << r.err;
}

TEST(DocsCommandUsageTest, UnwritableOutputDirExitsOne) {
  ScratchDir dir;
  const std::string file = dir.write("plain-file", "x");
  Ran r = testing::runCmd({"docs", "--output-dir", file + "/reference"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err.rfind("error: creating " + file + "/reference: ", 0), 0u) << r.err;
}

TEST(ReferenceCellTest, EscapesPipesAndFoldsLines) {
  EXPECT_EQ(reference::cell("a|b\nc"), "a\\|b c");
}

}  // namespace
}  // namespace nodewright::cmd
