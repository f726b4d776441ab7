// Every manifest the repository ships (examples/ and deploy/crds/) applied with kubectl and
// read back: each field of the file must come back with the value it was given. The server
// may add defaults, status and metadata, so the comparison is a subset one.

#include <algorithm>
#include <cctype>
#include <filesystem>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/yaml.h"
#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;

const fs::path kSource = NW_SOURCE_DIR;

// Repository-relative paths of the shipped manifests, sorted.
std::vector<std::string> manifests() {
  std::vector<std::string> out;
  for (const char* dir : {"examples", "deploy/crds"}) {
    if (!fs::is_directory(kSource / dir)) {
      continue;
    }
    for (const auto& entry : fs::recursive_directory_iterator(kSource / dir)) {
      const fs::path& p = entry.path();
      if (!entry.is_regular_file() || (p.extension() != ".yaml" && p.extension() != ".yml")) {
        continue;
      }
      if (p.filename() == "kustomization.yaml") {
        continue;  // not an object: see Kustomization
      }
      out.push_back(fs::relative(p, kSource).string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string testName(const ::testing::TestParamInfo<std::string>& info) {
  std::string name = info.param;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      c = '_';
    }
  }
  return name;
}

// Applies `file` with `applyArgs` and compares every document with what the server returns.
template <class Suite>
void applyAndReadBack(const std::string& file, const std::vector<std::string>& applyArgs) {
  std::string path = (kSource / file).string();
  auto docs = api::parseDocuments(readFile(path));
  ASSERT_TRUE(docs) << docs.error().message();
  ASSERT_FALSE(docs->empty()) << file << " has no objects";

  std::vector<std::string> apply = {"apply"};
  apply.insert(apply.end(), applyArgs.begin(), applyArgs.end());
  apply.insert(apply.end(), {"-f", path});
  Suite::ok(apply);

  // kubectl get -f reads the same file and prints the live objects in file order.
  Ran ran = Suite::run({"get", "-f", path, "-o", "json"});
  ASSERT_EQ(ran.code, 0) << ran.err;
  Json live = objectsOf(Json::parse(ran.out));
  ASSERT_EQ(live.size(), docs->size()) << ran.out;
  for (size_t i = 0; i < docs->size(); ++i) {
    const Json& sent = (*docs)[i].value;
    for (const std::string& difference : subsetDifferences(sent, live[i])) {
      ADD_FAILURE() << file << ": " << sent["kind"].get<std::string>() << "/"
                    << sent["metadata"]["name"].get<std::string>() << difference;
    }
  }
}

class KubectlExamples : public KubectlSuite<KubectlExamples>,
                        public ::testing::WithParamInterface<std::string> {
 public:
  using KubectlSuite<KubectlExamples>::ok;
  using KubectlSuite<KubectlExamples>::run;
};

TEST_P(KubectlExamples, AppliesAndReadsBackEqual) {
  applyAndReadBack<KubectlExamples>(GetParam(), {});
}

INSTANTIATE_TEST_SUITE_P(KubectlManifests, KubectlExamples, ::testing::ValuesIn(manifests()),
                         testName);

// The same with server-side apply, on a server of its own so that nothing from client-side
// apply is in the way.
class KubectlExamplesServerSide : public KubectlSuite<KubectlExamplesServerSide>,
                                  public ::testing::WithParamInterface<std::string> {
 public:
  using KubectlSuite<KubectlExamplesServerSide>::ok;
  using KubectlSuite<KubectlExamplesServerSide>::run;
};

TEST_P(KubectlExamplesServerSide, AppliesAndReadsBackEqual) {
  applyAndReadBack<KubectlExamplesServerSide>(GetParam(), {"--server-side"});
}

INSTANTIATE_TEST_SUITE_P(KubectlManifests, KubectlExamplesServerSide,
                         ::testing::ValuesIn(manifests()), testName);

class KubectlExampleFiles : public KubectlSuite<KubectlExampleFiles> {};

TEST_F(KubectlExampleFiles, TheRepositoryShipsTheExpectedExamples) {
  std::vector<std::string> files = manifests();
  for (const char* expected :
       {"examples/karpenter/nodepool.yaml", "examples/karpenter/efa-nodeclass.yaml",
        "examples/workload/inflate.yaml", "examples/capz/cluster.yaml",
        "deploy/crds/karpenter.sh_nodepools.yaml"}) {
    EXPECT_NE(std::find(files.begin(), files.end(), expected), files.end()) << expected;
  }
}

TEST_F(KubectlExampleFiles, ExamplesAreValidForTheModel) {
  Ran ran = runProcess({NW_BINARY, "validate", "--strict", "-f", (kSource / "examples").string()});
  EXPECT_EQ(ran.code, 0) << ran.out << ran.err;
}

TEST_F(KubectlExampleFiles, KustomizationAppliesEveryCrd) {
  std::string out = ok({"apply", "-k", (kSource / "deploy/crds").string()});
  size_t crds = 0;
  for (const std::string& file : manifests()) {
    crds += file.rfind("deploy/crds/", 0) == 0;
  }
  size_t applied = 0;
  for (size_t at = out.find("customresourcedefinition.apiextensions.k8s.io/");
       at != std::string::npos;
       at = out.find("customresourcedefinition.apiextensions.k8s.io/", at + 1)) {
    ++applied;
  }
  EXPECT_EQ(applied, crds) << out;
  // Each served kind answers through its CRD's names.
  EXPECT_THAT(ok({"get", "crd", "nodepools.karpenter.sh", "-o", "jsonpath={.spec.names.kind}"}),
              HasSubstr("NodePool"));
}

TEST_F(KubectlExampleFiles, InflateScalesUp) {
  ok({"apply", "-f", (kSource / "examples/workload/inflate.yaml").string()});
  ok({"scale", "deployment", "inflate", "-n", "default", "--replicas=5"});
  Json live = getJson({"deployment", "inflate", "-n", "default"});
  EXPECT_EQ(live["spec"]["replicas"], 5);
  EXPECT_EQ(live["spec"]["template"]["spec"]["containers"][0]["resources"]["requests"]["cpu"], "1");
}

}  // namespace
}  // namespace nodewright::apiserver::testing
