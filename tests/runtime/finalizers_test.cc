#include "runtime/finalizers.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "api/core/secret.h"
#include "support/apiserver/test_server.h"
#include "support/kube/rest_config.h"

// The finalizer helpers against the embedded API server: idempotent, conflict-safe through the
// resourceVersion, and the re-reading variant for callers holding an older copy.
namespace nodewright::runtime {
namespace {

using api::corev1::ConfigMap;

constexpr const char* kFinalizer = "example.nodewright.io/cleanup";

class FinalizersTest : public ::testing::Test {
 protected:
  ConfigMap create(const std::string& name) {
    ConfigMap cm;
    cm.apiVersion = "v1";
    cm.kind = "ConfigMap";
    cm.metadata.name = name;
    cm.metadata.namespace_ = "default";
    auto created = configMaps_.create(cm);
    EXPECT_TRUE(created) << created.error().describe();
    return created.value_or(cm);
  }
  ConfigMap stored(const std::string& name) {
    auto got = configMaps_.get("default", name);
    EXPECT_TRUE(got) << got.error().describe();
    return got.value_or(ConfigMap{});
  }

  apiserver::testing::TestApiServer server_;
  std::unique_ptr<kube::Client> client_ =
      kube::testing::clientFor(kube::testing::restConfigFor(server_));
  kube::Typed<ConfigMap> configMaps_{*client_};
};

TEST_F(FinalizersTest, AddIsIdempotentAndRemoveTakesItOff) {
  ConfigMap cm = create("a");
  ASSERT_TRUE(addFinalizer(configMaps_, cm, kFinalizer));
  ASSERT_TRUE(addFinalizer(configMaps_, cm, kFinalizer));
  EXPECT_TRUE(hasFinalizer(cm.metadata, kFinalizer));
  EXPECT_EQ(stored("a").metadata.finalizers, std::vector<std::string>{kFinalizer});

  ASSERT_TRUE(removeFinalizer(configMaps_, cm, kFinalizer));
  EXPECT_FALSE(hasFinalizer(stored("a").metadata, kFinalizer));
}

TEST_F(FinalizersTest, AStaleCopyConflictsInsteadOfOverwriting) {
  ConfigMap stale = create("b");
  ConfigMap fresh = stale;
  fresh.data["k"] = "v";
  ASSERT_TRUE(configMaps_.update(fresh));

  auto added = addFinalizer(configMaps_, stale, kFinalizer);

  ASSERT_FALSE(added);
  EXPECT_TRUE(added.error().is(kube::Reason::Conflict)) << added.error().describe();
  EXPECT_EQ(stored("b").data.at("k"), "v");
}

TEST_F(FinalizersTest, WithRetryWorksFromAnOlderCopyAndToleratesAGoneObject) {
  ConfigMap stale = create("c");
  ConfigMap fresh = stale;
  fresh.data["k"] = "v";
  ASSERT_TRUE(configMaps_.update(fresh));

  ASSERT_TRUE(setFinalizerWithRetry(*client_, stale, kFinalizer, true));
  ConfigMap now = stored("c");
  EXPECT_TRUE(hasFinalizer(now.metadata, kFinalizer));
  EXPECT_EQ(now.data.at("k"), "v");

  ASSERT_TRUE(setFinalizerWithRetry(*client_, stale, kFinalizer, false));
  EXPECT_FALSE(hasFinalizer(stored("c").metadata, kFinalizer));
  ASSERT_TRUE(configMaps_.remove("default", "c"));
  EXPECT_TRUE(setFinalizerWithRetry(*client_, stale, kFinalizer, false));
}

}  // namespace
}  // namespace nodewright::runtime
