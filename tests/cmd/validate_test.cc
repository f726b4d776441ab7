#include <fstream>

#include <gtest/gtest.h>

#include "api/crd/test_kinds.h"
#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

using testing::lines;
using testing::Ran;
using testing::ScratchDir;
using Lines = std::vector<std::string>;

constexpr const char* kValidWidget = R"(apiVersion: test.nodewright.io/v1
kind: Widget
metadata:
  name: small-one
spec:
  size: small
  ports:
    - name: http
      port: 80
)";

constexpr const char* kInvalidWidget = R"(apiVersion: test.nodewright.io/v1
kind: Widget
metadata:
  name: broken
spec:
  size: huge
  replicas: -1
  colour: red
  ports:
    - name: http
      port: 80
    - name: http
      port: 0
)";

class ValidateCommandTest : public ::testing::Test {
 protected:
  Ran validate(std::vector<std::string> args, const std::string& stdinText = "") {
    args.insert(args.begin(), "validate");
    return testing::runWith(testkinds::testRegistry(), args, stdinText);
  }
  ScratchDir dir_;
};

TEST_F(ValidateCommandTest, ValidFileExitsZeroAndSaysSoPerDocument) {
  std::string file = dir_.write("widget.yaml", kValidWidget);
  Ran r = validate({"-f", file});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(lines(r.out), Lines{file + ":0: Widget/small-one: valid"});
  EXPECT_EQ(r.err, "");
}

TEST_F(ValidateCommandTest, InvalidFileReportsEveryErrorWithItsPath) {
  std::string file = dir_.write("broken.yaml", kInvalidWidget);
  Ran r = validate({"-f", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  const std::string at = file + ":0: Widget/broken: ";
  EXPECT_EQ(lines(r.err),
            (Lines{at + "spec.colour: field not declared in schema",
                   at + "spec.size: Unsupported value: \"huge\": supported values: \"small\", "
                        "\"large\"",
                   at + "spec.replicas: Invalid value: -1: must be greater than or equal to 0",
                   at + "spec.ports[1]: Duplicate value: {\"name\":\"http\",\"protocol\":\"TCP\"}",
                   at + "spec.ports[1].port: Invalid value: 0: must be greater than or equal to "
                        "1"}));
}

TEST_F(ValidateCommandTest, MultiDocumentStreamCountsDocumentsFromZero) {
  std::string file =
      dir_.write("both.yaml", std::string(kValidWidget) + "---\n" + kInvalidWidget + "---\n" +
                                  "apiVersion: test.nodewright.io/v1\nkind: Gadget\n"
                                  "metadata:\n  name: g\nspec:\n  colour: blue\n");
  Ran r = validate({"-f", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(lines(r.out),
            (Lines{file + ":0: Widget/small-one: valid", file + ":2: Gadget/g: valid"}));
  EXPECT_EQ(lines(r.err).size(), 5u);
  EXPECT_EQ(lines(r.err).front().rfind(file + ":1: Widget/broken: spec.colour", 0), 0u);
}

TEST_F(ValidateCommandTest, DirectoryChecksEveryManifestBelowItInPathOrder) {
  dir_.write("m/b.yaml", kValidWidget);
  dir_.write("m/a.json",
             R"({"apiVersion": "test.nodewright.io/v1", "kind": "Gadget",
                 "metadata": {"name": "from-json"}})");
  dir_.write("m/nested/c.yml", kValidWidget);
  dir_.write("m/notes.txt", "not a manifest: [");
  dir_.write("m/README.md", "# nothing");
  const std::string m = (dir_.path() / "m").string();
  Ran r = validate({"-f", m});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(lines(r.out), (Lines{m + "/a.json:0: Gadget/from-json: valid",
                                 m + "/b.yaml:0: Widget/small-one: valid",
                                 m + "/nested/c.yml:0: Widget/small-one: valid"}));
}

TEST_F(ValidateCommandTest, EmptyDirectoryIsAnError) {
  std::filesystem::create_directories(dir_.path() / "empty");
  const std::string d = (dir_.path() / "empty").string();
  Ran r = validate({"-f", d});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, d + ": no *.yaml, *.yml or *.json files found\n");
}

TEST_F(ValidateCommandTest, DashReadsStandardInput) {
  Ran r = validate({"-f", "-"}, kInvalidWidget);
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(lines(r.err).front(),
            "<stdin>:0: Widget/broken: spec.colour: field not declared in schema");
  Ran ok = validate({"-f", "-"}, kValidWidget);
  EXPECT_EQ(ok.code, 0);
  EXPECT_EQ(ok.out, "<stdin>:0: Widget/small-one: valid\n");
}

TEST_F(ValidateCommandTest, JsonOnStandardInput) {
  Ran r = validate({"-f", "-"}, R"({"apiVersion": "test.nodewright.io/v1", "kind": "Widget",
    "metadata": {"name": "j"}, "spec": {"size": "large", "replicas": "two"}})");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "<stdin>:0: Widget/j: spec.replicas: Invalid value: \"two\": must be of type "
            "integer\n");
}

constexpr const char* kElidedWidget = R"(apiVersion: test.nodewright.io/v1
kind: Widget
metadata:
  name: doc
spec:
  size: ...
  labels: { ... }
  ports:
    - name: http
    - { ... }
)";

TEST_F(ValidateCommandTest, EllipsisIsAnElidedValueByDefault) {
  std::string file = dir_.write("doc.yaml", kElidedWidget);
  Ran r = validate({"-f", file});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, file + ":0: Widget/doc: valid\n");
  EXPECT_EQ(r.err, "");
}

TEST_F(ValidateCommandTest, StrictRejectsTheEllipsisAsTheApiServerWould) {
  std::string file = dir_.write("doc.yaml", kElidedWidget);
  Ran r = validate({"-f", file, "--strict"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  const std::string at = file + ":0: Widget/doc: ";
  // `{ ... }` reads as an object with the key "..."; labels take it as a key with no value.
  EXPECT_EQ(lines(r.err),
            (Lines{at + "spec.ports[1]....: field not declared in schema",
                   at + "spec.size: Unsupported value: \"...\": supported values: \"small\", "
                        "\"large\"",
                   at + "spec.ports[1].name: Required value"}));
}

constexpr const char* kUnnamedWidget = R"(apiVersion: test.nodewright.io/v1
kind: Widget
spec:
  size: small
)";

TEST_F(ValidateCommandTest, MissingNameIsAWarningByDefault) {
  std::string file = dir_.write("unnamed.yaml", kUnnamedWidget);
  Ran r = validate({"-f", file});
  EXPECT_EQ(r.code, 0);
  EXPECT_EQ(r.out, file + ":0: Widget/<unnamed>: valid\n");
  EXPECT_EQ(r.err, file + ":0: Widget/<unnamed>: warning: metadata.name: Required value\n");
}

TEST_F(ValidateCommandTest, MissingNameIsAnErrorWhenStrict) {
  std::string file = dir_.write("unnamed.yaml", kUnnamedWidget);
  Ran r = validate({"--strict", "-f", file});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, file + ":0: Widget/<unnamed>: metadata.name: Required value\n");
}

TEST_F(ValidateCommandTest, KindFlagCompletesBareFragments) {
  std::string file = dir_.write("fragment.yaml", "metadata:\n  name: f\nspec:\n  size: small\n");
  Ran without = validate({"-f", file});
  EXPECT_EQ(without.code, 1);
  EXPECT_EQ(lines(without.err), (Lines{file + ":0: <unknown>/f: apiVersion: Required value",
                                       file + ":0: <unknown>/f: kind: Required value"}));
  Ran with = validate({"-f", file, "--kind", "test.nodewright.io/v1/Widget"});
  EXPECT_EQ(with.code, 0) << with.err;
  EXPECT_EQ(with.out, file + ":0: Widget/f: valid\n");
}

TEST_F(ValidateCommandTest, KindFlagMustNameARegisteredKind) {
  Ran r = validate({"-f", "-", "--kind", "test.nodewright.io/v9/Widget"});
  EXPECT_EQ(r.code, 2);
  EXPECT_EQ(r.err,
            "error: --kind: no kind \"Widget\" is registered for version "
            "\"test.nodewright.io/v9\"\n");
  Ran shape = validate({"-f", "-", "--kind", "Widget"});
  EXPECT_EQ(shape.code, 2);
  EXPECT_EQ(shape.err,
            "error: --kind must be APIVERSION/KIND, e.g. karpenter.sh/v1alpha5/Provisioner\n");
}

TEST_F(ValidateCommandTest, UnregisteredKindIsAnError) {
  Ran r = validate({"-f", "-"},
                   "apiVersion: test.nodewright.io/v1\nkind: Doohickey\n"
                   "metadata:\n  name: d\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err,
            "<stdin>:0: Doohickey/d: kind: Invalid value: \"Doohickey\": no kind \"Doohickey\" is "
            "registered for version \"test.nodewright.io/v1\"\n");
}

TEST_F(ValidateCommandTest, UnreadableFileIsReportedAndOtherFilesAreStillChecked) {
  std::string good = dir_.write("good.yaml", kValidWidget);
  std::string missing = (dir_.path() / "missing.yaml").string();
  Ran r = validate({"-f", missing, "-f", good});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, missing + ": cannot read: No such file or directory\n");
  EXPECT_EQ(r.out, good + ":0: Widget/small-one: valid\n");
}

TEST_F(ValidateCommandTest, YamlSyntaxErrorNamesLineAndColumn) {
  std::string bad = dir_.write("bad.yaml", "apiVersion: v1\nkind: [Widget\nmetadata: {}\n");
  std::string good = dir_.write("good.yaml", kValidWidget);
  Ran r = validate({"-f", bad, "-f", good});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, bad + ": line 3, column 9: did not find expected ',' or ']'\n");
  EXPECT_EQ(r.out, good + ":0: Widget/small-one: valid\n");
}

TEST_F(ValidateCommandTest, DuplicateKeysAreErrors) {
  Ran r = validate({"-f", "-"}, std::string(kValidWidget) + "  size: large\n");
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "<stdin>:0: Widget/small-one: spec.size: duplicate field \"size\"\n");
}

}  // namespace
}  // namespace nodewright::cmd
