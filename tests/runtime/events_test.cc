#include "runtime/events.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "api/core/event.h"
#include "api/core/namespace.h"
#include "api/core/node.h"
#include "api/core/secret.h"
#include "api/reflect/json.h"
#include "core/clock.h"
#include "support/apiserver/test_server.h"
#include "support/runtime/api_client.h"

namespace nodewright::runtime {
namespace {

using api::corev1::Event;
using std::chrono::minutes;
using std::chrono::seconds;

api::Object configMap(const std::string& name, const std::string& uid) {
  auto cm = std::make_shared<api::corev1::ConfigMap>();
  cm->apiVersion = "v1";
  cm->kind = "ConfigMap";
  cm->metadata.name = name;
  cm->metadata.namespace_ = "team-a";
  cm->metadata.uid = uid;
  cm->metadata.resourceVersion = "42";
  cm->data["password"] = "hunter2";  // never leaves the process in an event
  return api::Object(&kube::kindOf<api::corev1::ConfigMap>(), cm);
}

api::Object node(const std::string& name) {
  auto n = std::make_shared<api::corev1::Node>();
  n->apiVersion = "v1";
  n->kind = "Node";
  n->metadata.name = name;
  n->metadata.uid = "node-uid";
  return api::Object(&kube::kindOf<api::corev1::Node>(), n);
}

class EventRecorderTest : public ::testing::Test {
 protected:
  EventRecorderTest() {
    api::corev1::Namespace ns;
    ns.apiVersion = "v1";
    ns.kind = "Namespace";
    ns.metadata.name = "team-a";
    auto created = kube::Typed<api::corev1::Namespace>(*client_).create(ns);
    EXPECT_TRUE(created) << created.error().describe();
  }

  std::vector<Event> events(const std::string& ns = "team-a") {
    auto list = kube::Typed<Event>(*client_).list(ns);
    EXPECT_TRUE(list) << list.error().describe();
    if (!list) {
      return {};
    }
    std::sort(list->begin(), list->end(),
              [](const Event& a, const Event& b) { return a.message < b.message; });
    return *list;
  }

  apiserver::testing::TestApiServer server_;
  std::unique_ptr<kube::Client> client_ = testing::apiClient(server_);
  core::FakeClock clock_;
  std::unique_ptr<EventRecorder> recorder_ = std::make_unique<EventRecorder>(
      *client_, clock_, EventRecorderOptions{.component = "nodewright", .host = "host-1"});
};

TEST_F(EventRecorderTest, RepeatedEventIsOneEventWithACount) {
  const core::Time first(std::chrono::floor<seconds>(clock_.now()));
  for (int i = 0; i < 10; ++i) {
    if (i > 0) {
      clock_.advance(seconds(1));
    }
    recorder_->event(configMap("cm", "uid-1"), EventType::Warning, "Failed", "could not sync");
  }
  recorder_->flush();

  auto written = events();
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].count, 10);
  EXPECT_EQ(written[0].firstTimestamp, first);
  EXPECT_EQ(written[0].lastTimestamp.point() - first.point(), seconds(9));
  EXPECT_TRUE(std::regex_match(written[0].metadata.name, std::regex(R"(cm\.[0-9a-f]{16})")))
      << written[0].metadata.name;
  auto stats = recorder_->stats();
  EXPECT_EQ(stats.created, 1u);
  EXPECT_EQ(stats.aggregated, 9u);
  EXPECT_EQ(stats.dropped, 0u);
}

TEST_F(EventRecorderTest, DifferentMessagesAreSeparateEvents) {
  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "one");
  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "two");
  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "one");
  recorder_->flush();

  auto written = events();
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0].message, "one");
  EXPECT_EQ(written[0].count, 2);
  EXPECT_EQ(written[1].message, "two");
  EXPECT_EQ(written[1].count, 1);
}

TEST_F(EventRecorderTest, DescribesTheInvolvedObjectAndTheSource) {
  recorder_->event(configMap("cm", "uid-1"), EventType::Warning, "Failed", "could not sync");
  recorder_->flush();

  auto written = events();
  ASSERT_EQ(written.size(), 1u);
  const Event& e = written[0];
  EXPECT_EQ(e.metadata.namespace_, "team-a");
  EXPECT_EQ(e.involvedObject.apiVersion, "v1");
  EXPECT_EQ(e.involvedObject.kind, "ConfigMap");
  EXPECT_EQ(e.involvedObject.name, "cm");
  EXPECT_EQ(e.involvedObject.namespace_, "team-a");
  EXPECT_EQ(e.involvedObject.uid, "uid-1");
  EXPECT_EQ(e.involvedObject.resourceVersion, "42");
  EXPECT_EQ(e.type, "Warning");
  EXPECT_EQ(e.reason, "Failed");
  EXPECT_EQ(e.message, "could not sync");
  EXPECT_EQ(e.source.component, "nodewright");
  EXPECT_EQ(e.source.host, "host-1");
  EXPECT_EQ(e.reportingComponent, "nodewright");
  EXPECT_EQ(e.count, 1);
  EXPECT_EQ(api::dumpJson(api::Object(&kube::kindOf<Event>(), std::make_shared<Event>(e)).toJson())
                .find("hunter2"),
            std::string::npos);
}

TEST_F(EventRecorderTest, ClusterScopedObjectsGetEventsInDefault) {
  recorder_->event(node("node-1"), EventType::Normal, "Registered", "node joined");
  recorder_->flush();

  auto written = events("default");
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].involvedObject.kind, "Node");
  EXPECT_EQ(written[0].involvedObject.namespace_, "");
  EXPECT_EQ(written[0].involvedObject.name, "node-1");
}

TEST_F(EventRecorderTest, RateLimitDropsPerObjectAndRefillsWithTime) {
  for (int i = 0; i < 30; ++i) {
    recorder_->event(configMap("busy", "uid-busy"), EventType::Normal, "Loop", "again");
  }
  // Another object has its own bucket.
  recorder_->event(configMap("quiet", "uid-quiet"), EventType::Normal, "Loop", "again");
  EXPECT_EQ(recorder_->stats().dropped, 5u);  // counted at once, without the server

  clock_.advance(seconds(299));
  recorder_->event(configMap("busy", "uid-busy"), EventType::Normal, "Loop", "again");
  EXPECT_EQ(recorder_->stats().dropped, 6u);
  clock_.advance(seconds(1));  // one token per five minutes
  recorder_->event(configMap("busy", "uid-busy"), EventType::Normal, "Loop", "again");
  recorder_->event(configMap("busy", "uid-busy"), EventType::Normal, "Loop", "again");
  EXPECT_EQ(recorder_->stats().dropped, 7u);
  recorder_->flush();

  auto written = events();
  ASSERT_EQ(written.size(), 2u);
  std::sort(written.begin(), written.end(), [](const Event& a, const Event& b) {
    return a.involvedObject.name < b.involvedObject.name;
  });
  EXPECT_EQ(written[0].involvedObject.name, "busy");
  EXPECT_EQ(written[0].count, 26);
  EXPECT_EQ(written[1].involvedObject.name, "quiet");
  EXPECT_EQ(written[1].count, 1);
}

TEST_F(EventRecorderTest, RecreatesAnEventDeletedMeanwhile) {
  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "done");
  recorder_->flush();
  auto written = events();
  ASSERT_EQ(written.size(), 1u);
  ASSERT_TRUE(kube::Typed<Event>(*client_).remove("team-a", written[0].metadata.name));

  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "done");
  recorder_->flush();
  written = events();
  ASSERT_EQ(written.size(), 1u);
  EXPECT_EQ(written[0].count, 2);
  EXPECT_EQ(recorder_->stats().created, 2u);
}

TEST_F(EventRecorderTest, RepeatAfterTheWindowStartsANewEvent) {
  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "done");
  clock_.advance(minutes(10));
  recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", "done");
  recorder_->flush();

  auto written = events();
  ASSERT_EQ(written.size(), 2u);
  EXPECT_EQ(written[0].count, 1);
  EXPECT_EQ(written[1].count, 1);
}

TEST_F(EventRecorderTest, RecordingDoesNotWaitForAnUnreachableServer) {
  server_.stop();
  for (int i = 0; i < 3; ++i) {
    recorder_->event(configMap("cm", "uid-1"), EventType::Normal, "Synced", std::to_string(i));
  }
  EXPECT_EQ(recorder_->stats().dropped, 0u);
  // Retries wait on the fake clock, which does not move; the destructor still ends them.
  recorder_.reset();
}

}  // namespace
}  // namespace nodewright::runtime
