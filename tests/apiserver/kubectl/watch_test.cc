// kubectl get -w: the initial list, then one line per change, in every output format kubectl
// streams with.

#include <sstream>

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

using ::testing::MatchesRegex;

std::string configMap(const std::string& ns, const std::string& name, const std::string& value,
                      const Json& labels = Json::object()) {
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
              {"data", {{"key", value}}}}
      .dump();
}

class KubectlWatch : public KubectlSuite<KubectlWatch> {};

constexpr auto kLine = 10s;

TEST_F(KubectlWatch, StreamsAddedModifiedAndDeletedEvents) {
  std::string ns = makeNamespace("watch-events");
  ok({"apply", "-f", "-"}, configMap(ns, "before", "0"));
  Child watch(command({"get", "configmaps", "-n", ns, "-w", "--output-watch-events"}));
  EXPECT_THAT(watch.waitForLine("EVENT", kLine), MatchesRegex("EVENT +NAME +DATA +AGE"));
  // The initial list comes as ADDED events.
  EXPECT_THAT(watch.waitForLine("ADDED", kLine), MatchesRegex("ADDED +before +1 +.*"));
  ok({"apply", "-f", "-"}, configMap(ns, "during", "1"));
  EXPECT_THAT(watch.waitForLine("ADDED", kLine), MatchesRegex("ADDED +during +1 +.*"));
  ok({"patch", "configmap", "during", "-n", ns, "-p", R"({"data":{"other":"2"}})"});
  EXPECT_THAT(watch.waitForLine("MODIFIED", kLine), MatchesRegex("MODIFIED +during +2 +.*"));
  ok({"delete", "configmap", "before", "-n", ns});
  EXPECT_THAT(watch.waitForLine("DELETED", kLine), MatchesRegex("DELETED +before +1 +.*"));
}

TEST_F(KubectlWatch, WatchOnlyWithNameOutputPrintsOneLinePerChange) {
  std::string ns = makeNamespace("watch-only");
  ok({"apply", "-f", "-"}, configMap(ns, "existing", "0"));
  // --watch-only prints no list, so the client log tells when the watch is open.
  Child watch(markedCommand({"get", "configmaps", "-n", ns, "--watch-only", "-o", "name"},
                            {"watch=true", "configmap/[a-z]*"}));
  ASSERT_EQ(watch.waitForLine("watch=true", kLine), "watch=true");
  ok({"apply", "-f", "-"}, configMap(ns, "first", "1"));
  // The first line is the new object, not "existing" from the list.
  EXPECT_EQ(watch.waitForLine("configmap/", kLine), "configmap/first");
  ok({"label", "configmap", "first", "-n", ns, "seen=yes"});
  EXPECT_EQ(watch.waitForLine("configmap/", kLine), "configmap/first");
  ok({"apply", "-f", "-"}, configMap(ns, "second", "2"));
  EXPECT_EQ(watch.waitForLine("configmap/", kLine), "configmap/second");
}

TEST_F(KubectlWatch, LabelSelectorFiltersTheStream) {
  std::string ns = makeNamespace("watch-selector");
  ok({"apply", "-f", "-"}, configMap(ns, "team-a-sentinel", "s", {{"team", "a"}}));
  Child watch(command({"get", "configmaps", "-n", ns, "-w", "-l", "team=a", "-o",
                       "jsonpath={.metadata.name}={.data.key}{\"\\n\"}"}));
  // Once the listed sentinel is printed, every later change reaches the watch.
  ASSERT_EQ(watch.waitForLine("team-", kLine), "team-a-sentinel=s");
  ok({"apply", "-f", "-"}, configMap(ns, "team-b", "b", {{"team", "b"}}));
  ok({"apply", "-f", "-"}, configMap(ns, "team-a", "a", {{"team", "a"}}));
  ok({"patch", "configmap", "team-b", "-n", ns, "-p", R"({"data":{"key":"b2"}})"});
  ok({"patch", "configmap", "team-a", "-n", ns, "-p", R"({"data":{"key":"a2"}})"});
  // Only team=a changes arrive, in order; team-b lines would come first if it leaked.
  EXPECT_EQ(watch.waitForLine("team-", kLine), "team-a=a");
  EXPECT_EQ(watch.waitForLine("team-", kLine), "team-a=a2");
  // Relabelled into the selection, team-b shows up.
  ok({"label", "configmap", "team-b", "-n", ns, "team=a", "--overwrite"});
  EXPECT_EQ(watch.waitForLine("team-", kLine), "team-b=b2");
}

TEST_F(KubectlWatch, PrinterColumnsFollowStatusChanges) {
  ok({"apply", "-f", "-"}, R"({"apiVersion":"karpenter.sh/v1","kind":"NodeClaim",
      "metadata":{"name":"watched-claim","labels":{"karpenter.sh/nodepool":"default"}},
      "spec":{"nodeClassRef":{"group":"karpenter.k8s.aws","kind":"EC2NodeClass","name":"default"},
              "requirements":[{"key":"karpenter.sh/capacity-type","operator":"In",
                               "values":["spot"]}]}})");
  Child watch(command({"get", "nodeclaim", "watched-claim", "-w"}));
  EXPECT_THAT(watch.waitForLine("NAME", kLine),
              MatchesRegex("NAME +TYPE +CAPACITY +ZONE +NODE +READY +AGE"));
  EXPECT_THAT(watch.waitForLine("watched-claim", kLine), MatchesRegex("watched-claim +[0-9]+s"));
  ok({"patch", "nodeclaim", "watched-claim", "--subresource=status", "--type=merge", "-p",
      R"({"status":{"nodeName":"ip-10-0-1-7.ec2.internal","conditions":[{"type":"Ready",)"
      R"("status":"True","reason":"Ready","message":"",)"
      R"("lastTransitionTime":"2025-01-01T00:00:00Z"}]}})"});
  EXPECT_THAT(watch.waitForLine("watched-claim", kLine),
              MatchesRegex("watched-claim +ip-10-0-1-7.ec2.internal +True +[0-9]+s"));
}

TEST_F(KubectlWatch, AllNamespacesWatchSeesEveryNamespace) {
  std::string one = makeNamespace("watch-all-1");
  std::string two = makeNamespace("watch-all-2");
  ok({"apply", "-f", "-"}, configMap(one, "sentinel", "0"));
  Child watch(command({"get", "configmaps", "-A", "-w"}));
  EXPECT_THAT(watch.waitForLine("watch-all-", kLine), MatchesRegex("watch-all-1 +sentinel +1 +.*"));
  ok({"apply", "-f", "-"}, configMap(one, "across", "1"));
  EXPECT_THAT(watch.waitForLine("watch-all-", kLine), MatchesRegex("watch-all-1 +across +1 +.*"));
  ok({"apply", "-f", "-"}, configMap(two, "across", "2"));
  EXPECT_THAT(watch.waitForLine("watch-all-", kLine), MatchesRegex("watch-all-2 +across +1 +.*"));
}

TEST_F(KubectlWatch, ClusterScopedWatchSeesNodePoolChanges) {
  std::string pool = R"({"apiVersion":"karpenter.sh/v1","kind":"NodePool",
      "metadata":{"name":"NAME"},
      "spec":{"weight":WEIGHT,"disruption":{"consolidateAfter":"1m"},
              "template":{"spec":{"nodeClassRef":{"group":"karpenter.k8s.aws",
                                                  "kind":"EC2NodeClass","name":"default"}}}}})";
  auto make = [&](const std::string& name, const std::string& weight) {
    std::string text = pool;
    text.replace(text.find("NAME"), 4, name);
    text.replace(text.find("WEIGHT"), 6, weight);
    return text;
  };
  ok({"apply", "-f", "-"}, make("watch-sentinel", "1"));
  // Wide output carries the WEIGHT column.
  Child watch(command({"get", "nodepools", "-w", "--output-watch-events", "-o", "wide"}));
  EXPECT_THAT(watch.waitForLine("ADDED", kLine),
              MatchesRegex("ADDED +watch-sentinel +default +[0-9]+s +1 *"));
  ok({"apply", "-f", "-"}, make("watched-pool", "10"));
  EXPECT_THAT(watch.waitForLine("ADDED", kLine),
              MatchesRegex("ADDED +watched-pool +default +[0-9]+s +10 *"));
  ok({"apply", "-f", "-"}, make("watched-pool", "20"));
  EXPECT_THAT(watch.waitForLine("MODIFIED", kLine),
              MatchesRegex("MODIFIED +watched-pool +default +[0-9]+s +20 *"));
  ok({"delete", "nodepool", "watched-pool"});
  EXPECT_THAT(watch.waitForLine("DELETED", kLine),
              MatchesRegex("DELETED +watched-pool +default +[0-9]+s +20 *"));
}

// kubectl wait --for=delete and kubectl delete list, then watch from the list's
// resourceVersion with a field selector: changes between the two must still arrive, judged
// by what the objects were at that revision, not by what they are now.
TEST_F(KubectlWatch, SelectedWatchFromAResourceVersionReplaysWhatChangedSince) {
  std::string ns = makeNamespace("watch-replay");
  ok({"apply", "-f", "-"}, configMap(ns, "deleted-later", "0", {{"replay", "yes"}}));
  ok({"apply", "-f", "-"}, configMap(ns, "relabelled-later", "0", {{"replay", "yes"}}));
  // kubectl get -o json prints a List of its own; the server's list carries the revision.
  std::string rv = Json::parse(
      ok({"get", "--raw",
          "/api/v1/namespaces/watch-replay/configmaps"}))["metadata"]["resourceVersion"];
  ASSERT_FALSE(rv.empty());
  ok({"delete", "configmap", "deleted-later", "-n", ns});
  ok({"label", "configmap", "relabelled-later", "-n", ns, "replay=no", "--overwrite"});
  ok({"apply", "-f", "-"}, configMap(ns, "created-later", "0", {{"replay", "yes"}}));

  // A watch with timeoutSeconds ends by itself, so kubectl get --raw returns its events.
  auto events = [&](const std::string& selector) {
    std::string out = ok({"get", "--raw",
                          "/api/v1/namespaces/watch-replay/configmaps?watch=true&"
                          "resourceVersion=" +
                              rv + "&timeoutSeconds=1&" + selector});
    std::vector<std::string> seen;
    std::istringstream lines(out);
    for (std::string line; std::getline(lines, line);) {
      Json event = Json::parse(line, nullptr, false);
      if (event.is_discarded()) {
        ADD_FAILURE() << "not a watch event: " << line;
        continue;
      }
      seen.push_back(event["type"].get<std::string>() + " " +
                     event["object"]["metadata"]["name"].get<std::string>());
    }
    return seen;
  };
  using Events = std::vector<std::string>;
  EXPECT_EQ(events("fieldSelector=metadata.name%3Ddeleted-later"),
            (Events{"DELETED deleted-later"}));
  EXPECT_EQ(events("labelSelector=replay%3Dyes"),
            (Events{"DELETED deleted-later", "DELETED relabelled-later", "ADDED created-later"}));
  EXPECT_EQ(events(""),
            (Events{"DELETED deleted-later", "MODIFIED relabelled-later", "ADDED created-later"}));
}

}  // namespace
}  // namespace nodewright::apiserver::testing
