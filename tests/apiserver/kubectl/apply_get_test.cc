// kubectl's everyday verbs against the embedded server: apply, get in every output, describe,
// patch (the non-interactive kubectl edit), label, annotate, delete, explain, api-resources,
// server-side apply, dry-run, selectors and chunked lists.

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "api/yaml.h"
#include "apiserver/kubectl/kubectl_support.h"

namespace nodewright::apiserver::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

std::string deployment(const std::string& ns, const std::string& name, int replicas,
                       const std::string& image = "nginx:1.27") {
  return Json{
      {"apiVersion", "apps/v1"},
      {"kind", "Deployment"},
      {"metadata", {{"name", name}, {"namespace", ns}}},
      {"spec",
       {{"replicas", replicas},
        {"selector", {{"matchLabels", {{"app", name}}}}},
        {"template",
         {{"metadata", {{"labels", {{"app", name}}}}},
          {"spec",
           {{"containers", Json::array({{{"name", "web"}, {"image", image}},
                                        {{"name", "sidecar"}, {"image", "busybox"}}})}}}}}}}}
      .dump();
}

std::string configMap(const std::string& ns, const std::string& name,
                      const Json& labels = Json::object()) {
  return Json{{"apiVersion", "v1"},
              {"kind", "ConfigMap"},
              {"metadata", {{"name", name}, {"namespace", ns}, {"labels", labels}}},
              {"data", {{"key", "value"}}}}
      .dump();
}

std::string nodePool(const std::string& name) {
  return R"(apiVersion: karpenter.sh/v1
kind: NodePool
metadata:
  name: )" +
         name + R"(
spec:
  template:
    spec:
      nodeClassRef: {group: karpenter.k8s.aws, kind: EC2NodeClass, name: default}
      requirements:
        - {key: karpenter.sh/capacity-type, operator: In, values: [spot]}
  disruption:
    consolidationPolicy: WhenEmpty
    consolidateAfter: 30s
)";
}

class KubectlApplyGet : public KubectlSuite<KubectlApplyGet> {};

TEST_F(KubectlApplyGet, ApplyCreatesThenReportsUnchangedThenConfigured) {
  std::string ns = makeNamespace("apply-verbs");
  EXPECT_EQ(ok({"apply", "-f", "-"}, deployment(ns, "web", 2)), "deployment.apps/web created\n");
  EXPECT_EQ(ok({"apply", "-f", "-"}, deployment(ns, "web", 2)), "deployment.apps/web unchanged\n");
  EXPECT_EQ(ok({"apply", "-f", "-"}, deployment(ns, "web", 3)), "deployment.apps/web configured\n");
  Json live = getJson({"deployment", "web", "-n", ns});
  EXPECT_EQ(live["spec"]["replicas"], 3);
  EXPECT_EQ(live["metadata"]["generation"], 2);
  EXPECT_TRUE(
      live["metadata"]["annotations"].contains("kubectl.kubernetes.io/last-applied-configuration"));
}

TEST_F(KubectlApplyGet, DefaultTableShowsThePrinterColumns) {
  std::string ns = makeNamespace("table");
  ok({"apply", "-f", "-"}, deployment(ns, "web", 2));
  std::string table = ok({"get", "deployments", "-n", ns});
  EXPECT_THAT(table, ::testing::MatchesRegex("NAME +READY +UP-TO-DATE +AVAILABLE +AGE\n"
                                             "web +0/2 +0 +0 +[0-9]+s\n"));
  ok({"apply", "-f", "-"}, nodePool("table-pool"));
  std::string pools = ok({"get", "nodepools", "table-pool"});
  EXPECT_THAT(pools, ::testing::MatchesRegex("NAME +NODECLASS +NODES +READY +AGE\n"
                                             "table-pool +default +[0-9]+s\n"));
}

TEST_F(KubectlApplyGet, WideOutputAddsTheWideColumns) {
  std::string ns = makeNamespace("wide");
  ok({"apply", "-f", "-"}, deployment(ns, "web", 1));
  std::string table = ok({"get", "deployment", "web", "-n", ns, "-o", "wide"});
  EXPECT_THAT(table, ::testing::MatchesRegex(
                         "NAME +READY +UP-TO-DATE +AVAILABLE +AGE +CONTAINERS +IMAGES +SELECTOR\n"
                         "web +0/1 +0 +0 +[0-9]+s +web,sidecar +nginx:1.27,busybox +app=web\n"));
  ok({"apply", "-f", "-"}, nodePool("wide-pool"));
  EXPECT_THAT(ok({"get", "nodepool", "wide-pool", "-o", "wide"}),
              HasSubstr("WEIGHT   CPU   MEMORY"));
}

TEST_F(KubectlApplyGet, YamlOutputIsTheStoredObject) {
  std::string ns = makeNamespace("yaml-out");
  ok({"apply", "-f", "-"}, deployment(ns, "web", 2));
  std::string yaml = ok({"get", "deployment", "web", "-n", ns, "-o", "yaml"});
  auto docs = api::parseDocuments(yaml);
  ASSERT_TRUE(docs) << yaml;
  ASSERT_EQ(docs->size(), 1u) << yaml;
  const Json& object = (*docs)[0].value;
  EXPECT_EQ(object["apiVersion"], "apps/v1");
  EXPECT_EQ(object["kind"], "Deployment");
  EXPECT_EQ(object["metadata"]["namespace"], ns);
  EXPECT_EQ(object["metadata"]["generation"], 1);
  for (const char* field : {"uid", "resourceVersion", "creationTimestamp"}) {
    EXPECT_TRUE(object["metadata"].contains(field)) << field << " in\n" << yaml;
  }
  EXPECT_EQ(object["spec"]["replicas"], 2);
  EXPECT_EQ(object["spec"]["template"]["spec"]["containers"][1]["image"], "busybox");
  // A list is a List with the objects as items, as kubectl prints several objects.
  Json list = getJson({"deployments", "-n", ns});
  EXPECT_EQ(list["kind"], "List");
  ASSERT_EQ(list["items"].size(), 1u);
  EXPECT_EQ(list["items"][0]["metadata"]["name"], "web");
}

TEST_F(KubectlApplyGet, DescribeShowsTheObjectAndItsEvents) {
  std::string ns = makeNamespace("describe");
  ok({"apply", "-f", "-"}, deployment(ns, "web", 2));
  std::string text = ok({"describe", "deployment", "web", "-n", ns});
  EXPECT_THAT(text, ::testing::ContainsRegex("Namespace: +describe"));
  EXPECT_THAT(text, ::testing::ContainsRegex("Replicas: +2 desired"));
  EXPECT_THAT(text, ::testing::ContainsRegex("Image: +nginx:1.27"));

  ok({"apply", "-f", "-"},
     R"({"apiVersion":"v1","kind":"Pod","metadata":{"name":"p","namespace":")" + ns +
         R"("},"spec":{"containers":[{"name":"c","image":"nginx"}]}})");
  std::string uid = getJson({"pod", "p", "-n", ns})["metadata"]["uid"];
  ok({"apply", "-f", "-"},
     Json{{"apiVersion", "v1"},
          {"kind", "Event"},
          {"metadata", {{"name", "p.1"}, {"namespace", ns}}},
          {"involvedObject",
           {{"apiVersion", "v1"}, {"kind", "Pod"}, {"name", "p"}, {"namespace", ns}, {"uid", uid}}},
          {"reason", "FailedScheduling"},
          {"message", "0/3 nodes are available"},
          {"type", "Warning"},
          {"source", {{"component", "default-scheduler"}}},
          {"count", 1}}
         .dump());
  std::string pod = ok({"describe", "pod", "p", "-n", ns});
  EXPECT_THAT(pod, ::testing::ContainsRegex("Status: +Pending"));
  EXPECT_THAT(pod,
              ::testing::ContainsRegex(
                  "Warning +FailedScheduling +.* +default-scheduler +0/3 nodes are available"));

  ok({"apply", "-f", "-"}, nodePool("describe-pool"));
  std::string pool = ok({"describe", "nodepool", "describe-pool"});
  EXPECT_THAT(pool, ::testing::ContainsRegex("Kind: +NodePool"));
  EXPECT_THAT(pool, ::testing::ContainsRegex("Consolidate After: +30s"));
}

TEST_F(KubectlApplyGet, PatchInEveryFlavourEditsTheObject) {
  std::string ns = makeNamespace("patch");
  ok({"apply", "-f", "-"}, deployment(ns, "web", 2));
  // Strategic merge: the containers list merges by name, so the sidecar survives.
  EXPECT_EQ(
      ok({"patch", "deployment", "web", "-n", ns, "-p",
          R"({"spec":{"template":{"spec":{"containers":[{"name":"web","image":"nginx:1.28"}]}}}})"}),
      "deployment.apps/web patched\n");
  Json live = getJson({"deployment", "web", "-n", ns});
  auto containers = live["spec"]["template"]["spec"]["containers"];
  ASSERT_EQ(containers.size(), 2u) << containers.dump();
  EXPECT_EQ(containers[0]["image"], "nginx:1.28");
  EXPECT_EQ(containers[1]["name"], "sidecar");

  ok({"patch", "deployment", "web", "-n", ns, "--type=json", "-p",
      R"([{"op":"replace","path":"/spec/replicas","value":4},)"
      R"({"op":"remove","path":"/spec/template/spec/containers/1"}])"});
  ok({"patch", "deployment", "web", "-n", ns, "--type=merge", "-p",
      R"({"metadata":{"labels":{"edited":"yes"}}})"});
  live = getJson({"deployment", "web", "-n", ns});
  EXPECT_EQ(live["spec"]["replicas"], 4);
  EXPECT_EQ(live["spec"]["template"]["spec"]["containers"].size(), 1u);
  EXPECT_EQ(live["metadata"]["labels"]["edited"], "yes");
  // Two spec changes bump the generation; the label change does not.
  EXPECT_EQ(live["metadata"]["generation"], 3);

  EXPECT_EQ(ok({"patch", "deployment", "web", "-n", ns, "--type=merge", "-p",
                R"({"spec":{"replicas":4}})"}),
            "deployment.apps/web patched (no change)\n");
}

TEST_F(KubectlApplyGet, EditGoesThroughTheEditorAndAPatch) {
  ok({"apply", "-f", "-"}, nodePool("edited-pool"));
  // kubectl edit runs $KUBE_EDITOR on a YAML copy and patches the difference back.
  Ran edited = runProcess(
      {"kubectl", "--kubeconfig", server().kubeconfig(), "edit", "nodepool", "edited-pool"}, "",
      {{"KUBE_EDITOR", "sed -i s/WhenEmpty/WhenEmptyOrUnderutilized/"},
       {"KUBECACHEDIR", server().dataDir() + "/kubecache"},
       {"HOME", server().dataDir()}});
  EXPECT_EQ(edited.code, 0) << edited.err;
  EXPECT_EQ(edited.out, "nodepool.karpenter.sh/edited-pool edited\n");
  Json live = getJson({"nodepool", "edited-pool"});
  EXPECT_EQ(live["spec"]["disruption"]["consolidationPolicy"], "WhenEmptyOrUnderutilized");
  EXPECT_EQ(live["metadata"]["generation"], 2);
}

TEST_F(KubectlApplyGet, LabelAndAnnotateAddChangeAndRemove) {
  std::string ns = makeNamespace("labels");
  ok({"apply", "-f", "-"}, configMap(ns, "cm"));
  EXPECT_EQ(ok({"label", "configmap", "cm", "-n", ns, "tier=web"}), "configmap/cm labeled\n");
  // Changing an existing label needs --overwrite; kubectl checks it against the live object.
  EXPECT_THAT(fails({"label", "configmap", "cm", "-n", ns, "tier=db"}),
              HasSubstr("'tier' already has a value (web)"));
  ok({"label", "configmap", "cm", "-n", ns, "tier=db", "--overwrite"});
  EXPECT_EQ(ok({"annotate", "configmap", "cm", "-n", ns, "owner=team-a"}),
            "configmap/cm annotated\n");
  Json live = getJson({"configmap", "cm", "-n", ns});
  EXPECT_EQ(live["metadata"]["labels"]["tier"], "db");
  EXPECT_EQ(live["metadata"]["annotations"]["owner"], "team-a");
  EXPECT_EQ(ok({"get", "configmaps", "-n", ns, "-l", "tier=db", "-o", "name"}), "configmap/cm\n");

  ok({"label", "configmap", "cm", "-n", ns, "tier-"});
  ok({"annotate", "configmap", "cm", "-n", ns, "owner-"});
  live = getJson({"configmap", "cm", "-n", ns});
  EXPECT_FALSE(live["metadata"].value("labels", Json::object()).contains("tier"));
  EXPECT_FALSE(live["metadata"].value("annotations", Json::object()).contains("owner"));

  // Cluster-scoped kinds of the model take labels too.
  ok({"apply", "-f", "-"}, nodePool("labelled-pool"));
  ok({"label", "nodepool", "labelled-pool", "env=prod"});
  EXPECT_EQ(ok({"get", "nodepools", "-l", "env=prod", "-o", "name"}),
            "nodepool.karpenter.sh/labelled-pool\n");
}

TEST_F(KubectlApplyGet, DeleteRemovesTheObject) {
  std::string ns = makeNamespace("delete");
  ok({"apply", "-f", "-"}, configMap(ns, "a"));
  ok({"apply", "-f", "-"}, configMap(ns, "b", {{"group", "x"}}));
  ok({"apply", "-f", "-"}, configMap(ns, "c", {{"group", "x"}}));
  EXPECT_EQ(ok({"delete", "configmap", "a", "-n", ns}), "configmap \"a\" deleted\n");
  Ran gone = run({"get", "configmap", "a", "-n", ns});
  EXPECT_NE(gone.code, 0);
  EXPECT_EQ(gone.err, "Error from server (NotFound): configmaps \"a\" not found\n");
  ok({"delete", "configmaps", "-n", ns, "-l", "group=x"});
  EXPECT_EQ(ok({"get", "configmaps", "-n", ns, "-o", "name"}), "");
  // Deleting what is not there is an error unless --ignore-not-found.
  EXPECT_THAT(fails({"delete", "configmap", "a", "-n", ns}),
              HasSubstr("configmaps \"a\" not found"));
  ok({"delete", "configmap", "a", "-n", ns, "--ignore-not-found"});
}

TEST_F(KubectlApplyGet, CreateNamespaceWorks) {
  // kubectl create namespace goes through client-go's typed client, which sends protobuf.
  EXPECT_EQ(ok({"create", "namespace", "created-by-kubectl"}),
            "namespace/created-by-kubectl created\n");
  EXPECT_TRUE(exists({"namespace", "created-by-kubectl"}));
}

TEST_F(KubectlApplyGet, CreateConfigMapAndDeploymentWork) {
  std::string ns = makeNamespace("create-verbs");
  EXPECT_EQ(ok({"create", "configmap", "settings", "-n", ns, "--from-literal=mode=fast"}),
            "configmap/settings created\n");
  EXPECT_EQ(getJson({"configmap", "settings", "-n", ns})["data"]["mode"], "fast");
  EXPECT_EQ(ok({"create", "deployment", "app", "-n", ns, "--image=nginx", "--replicas=2"}),
            "deployment.apps/app created\n");
  EXPECT_EQ(getJson({"deployment", "app", "-n", ns})["spec"]["replicas"], 2);
}

TEST_F(KubectlApplyGet, CreateFromFileHonoursGenerateName) {
  std::string ns = makeNamespace("generate");
  std::string out = ok({"create", "-f", "-"},
                       R"({"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"gen-",)"
                       R"("namespace":"generate"}})");
  EXPECT_THAT(out, ::testing::MatchesRegex("configmap/gen-[a-z0-9]{5} created\n"));
}

TEST_F(KubectlApplyGet, ExplainDescribesModelFields) {
  std::string text = ok({"explain", "nodepool.spec.disruption"});
  EXPECT_THAT(text, HasSubstr("KIND:       NodePool"));
  EXPECT_THAT(text, ::testing::ContainsRegex("consolidateAfter\t<string> -required-"));
  EXPECT_THAT(text, HasSubstr("WhenEmptyOrUnderutilized"));
  std::string nics = ok({"explain", "ec2nodeclass.spec.networkInterfaces"});
  for (const char* field :
       {"interfaceType", "networkCardIndex", "deviceIndex", "ipv4PrefixCount"}) {
    EXPECT_THAT(nics, HasSubstr(field));
  }
  EXPECT_THAT(ok({"explain", "ec2nodeclass.spec.networkInterfaces.interfaceType"}),
              HasSubstr("efa-only"));
  EXPECT_THAT(ok({"explain", "deployments.spec.replicas"}), HasSubstr("<integer>"));
  EXPECT_THAT(ok({"explain", "machinedeployment.spec.template.spec.bootstrap"}),
              HasSubstr("dataSecretName"));
  EXPECT_THAT(fails({"explain", "nodepool.spec.nosuchfield"}),
              HasSubstr("field \"nosuchfield\" does not exist"));
}

TEST_F(KubectlApplyGet, ApiResourcesListsEveryServedKind) {
  std::string all = ok({"api-resources"});
  EXPECT_THAT(all, ::testing::ContainsRegex("\nnodepools +karpenter.sh/v1 +false +NodePool\n"));
  EXPECT_THAT(all,
              ::testing::ContainsRegex(
                  "\nec2nodeclasses +ec2nc,ec2ncs +karpenter.k8s.aws/v1 +false +EC2NodeClass\n"));
  EXPECT_THAT(all, ::testing::ContainsRegex("\npods +po +v1 +true +Pod\n"));
  EXPECT_THAT(all,
              ::testing::ContainsRegex("\nmachinedeployments +md +cluster.x-k8s.io/v1beta1 +true"));
  std::string names = ok({"api-resources", "--api-group=infrastructure.cluster.x-k8s.io", "-o",
                          "name", "--namespaced=true"});
  EXPECT_THAT(names, HasSubstr("azureclusters.infrastructure.cluster.x-k8s.io\n"));
  EXPECT_THAT(names, HasSubstr("azuremachinetemplates.infrastructure.cluster.x-k8s.io\n"));
  EXPECT_THAT(ok({"api-resources", "--namespaced=true", "-o", "name"}),
              Not(HasSubstr("nodepools")));
  EXPECT_THAT(ok({"api-versions"}), HasSubstr("karpenter.sh/v1\n"));
}

TEST_F(KubectlApplyGet, ServerSideApplyCreatesAndUpdates) {
  std::string ns = makeNamespace("ssa");
  EXPECT_EQ(ok({"apply", "--server-side", "-f", "-"}, deployment(ns, "web", 1)),
            "deployment.apps/web serverside-applied\n");
  ok({"apply", "--server-side", "-f", "-"}, deployment(ns, "web", 5, "nginx:1.29"));
  Json live = getJson({"deployment", "web", "-n", ns});
  EXPECT_EQ(live["spec"]["replicas"], 5);
  EXPECT_EQ(live["spec"]["template"]["spec"]["containers"][0]["image"], "nginx:1.29");
  EXPECT_EQ(live["spec"]["template"]["spec"]["containers"].size(), 2u);
  EXPECT_FALSE(live["metadata"]
                   .value("annotations", Json::object())
                   .contains("kubectl.kubernetes.io/last-applied-configuration"));

  EXPECT_EQ(ok({"apply", "--server-side", "-f", "-"}, nodePool("ssa-pool")),
            "nodepool.karpenter.sh/ssa-pool serverside-applied\n");
  EXPECT_EQ(getJson({"nodepool", "ssa-pool"})["spec"]["disruption"]["consolidationPolicy"],
            "WhenEmpty");
}

// Server-side apply without field managers (src/apiserver/patch/apply.h): the last applier
// wins without a conflict, and no managedFields are recorded. This pins the documented
// simplification; real kube-apiserver would report a conflict with "kubectl" here.
TEST_F(KubectlApplyGet, ServerSideApplyIsLastWriterWinsWithoutManagers) {
  std::string ns = makeNamespace("ssa-last-writer");
  ok({"apply", "--server-side", "-f", "-"}, deployment(ns, "web", 1));
  ok({"apply", "--server-side", "--field-manager=other", "-f", "-"}, deployment(ns, "web", 7));
  Json live = getJson({"deployment", "web", "-n", ns, "--show-managed-fields"});
  EXPECT_EQ(live["spec"]["replicas"], 7);
  EXPECT_FALSE(live["metadata"].contains("managedFields")) << live.dump(2);
}

TEST_F(KubectlApplyGet, ServerDryRunStoresNothing) {
  std::string ns = makeNamespace("dry-run");
  EXPECT_EQ(ok({"apply", "--dry-run=server", "-f", "-"}, configMap(ns, "dry")),
            "configmap/dry created (server dry run)\n");
  EXPECT_FALSE(exists({"configmap", "dry", "-n", ns}));
  EXPECT_EQ(ok({"apply", "--dry-run=server", "-f", "-"}, nodePool("dry-pool")),
            "nodepool.karpenter.sh/dry-pool created (server dry run)\n");
  EXPECT_FALSE(exists({"nodepool", "dry-pool"}));
  // The dry run still defaults and validates: -o yaml shows what would be stored.
  Json wouldBe = Json::parse(
      ok({"apply", "--dry-run=server", "-o", "json", "-f", "-"}, deployment(ns, "web", 2)));
  EXPECT_EQ(wouldBe["spec"]["strategy"]["type"], "RollingUpdate");

  ok({"apply", "-f", "-"}, configMap(ns, "real"));
  ok({"patch", "configmap", "real", "-n", ns, "--dry-run=server", "-p", R"({"data":{"key":"x"}})"});
  ok({"label", "configmap", "real", "-n", ns, "dry=run", "--dry-run=server"});
  EXPECT_EQ(ok({"delete", "configmap", "real", "-n", ns, "--dry-run=server"}),
            "configmap \"real\" deleted (server dry run)\n");
  Json live = getJson({"configmap", "real", "-n", ns});
  EXPECT_EQ(live["data"]["key"], "value");
  EXPECT_FALSE(live["metadata"].value("labels", Json::object()).contains("dry"));
}

TEST_F(KubectlApplyGet, LabelAndFieldSelectorsFilterLists) {
  std::string ns = makeNamespace("selectors");
  std::string all;
  for (int i = 1; i <= 6; ++i) {
    all += configMap(ns, "cm-" + std::to_string(i),
                     {{"idx", std::to_string(i)}, {"parity", i % 2 ? "odd" : "even"}}) +
           "\n";
  }
  ok({"apply", "-f", "-"}, all);
  auto names = [&](std::vector<std::string> args) {
    args.insert(args.begin(), {"get", "configmaps", "-n", ns, "-o", "name"});
    return ok(args);
  };
  EXPECT_EQ(names({"-l", "parity=odd"}), "configmap/cm-1\nconfigmap/cm-3\nconfigmap/cm-5\n");
  EXPECT_EQ(names({"-l", "idx in (2,4),parity=even"}), "configmap/cm-2\nconfigmap/cm-4\n");
  EXPECT_EQ(names({"-l", "idx notin (1,2,3,4),parity"}), "configmap/cm-5\nconfigmap/cm-6\n");
  EXPECT_EQ(names({"-l", "!idx"}), "");
  EXPECT_EQ(names({"--field-selector", "metadata.name=cm-3"}), "configmap/cm-3\n");
  EXPECT_EQ(names({"--field-selector", "metadata.name!=cm-3", "-l", "parity=odd"}),
            "configmap/cm-1\nconfigmap/cm-5\n");
  EXPECT_THAT(fails({"get", "configmaps", "-n", ns, "--field-selector", "data.key=value"}),
              HasSubstr("BadRequest"));
  EXPECT_THAT(fails({"get", "configmaps", "-n", ns, "-l", "a b"}), HasSubstr("BadRequest"));

  // Pods have their own field labels: the scheduler and kubelet list by node and phase.
  for (auto [name, node] : {std::pair{"on-a", "node-a"}, {"on-b", "node-b"}}) {
    ok({"apply", "-f", "-"},
       Json{{"apiVersion", "v1"},
            {"kind", "Pod"},
            {"metadata", {{"name", name}, {"namespace", ns}}},
            {"spec", {{"nodeName", node}, {"containers", {{{"name", "c"}, {"image", "nginx"}}}}}}}
           .dump());
  }
  EXPECT_EQ(ok({"get", "pods", "-n", ns, "-o", "name", "--field-selector", "spec.nodeName=node-b"}),
            "pod/on-b\n");
  EXPECT_EQ(ok({"get", "pods", "-A", "-o", "name", "--field-selector",
                "spec.nodeName=node-a,status.phase=Pending"}),
            "pod/on-a\n");
}

TEST_F(KubectlApplyGet, ChunkedListsReturnEveryObjectOnce) {
  std::string ns = makeNamespace("chunks");
  std::string all;
  std::string expected;
  for (int i = 0; i < 7; ++i) {
    std::string name = "page-" + std::to_string(i);
    all += configMap(ns, name, {{"paged", "yes"}}) + "\n";
    expected += "configmap/" + name + "\n";
  }
  ok({"apply", "-f", "-"}, all);
  Ran ran = run({"get", "configmaps", "-n", ns, "-o", "name", "--chunk-size=2", "-v=6"});
  ASSERT_EQ(ran.code, 0) << ran.err;
  EXPECT_EQ(ran.out, expected);
  // 7 objects in pages of 2: the first request and three continuations.
  size_t continuations = 0;
  for (size_t at = ran.err.find("continue="); at != std::string::npos;
       at = ran.err.find("continue=", at + 1)) {
    ++continuations;
  }
  EXPECT_EQ(continuations, 3u) << ran.err;
  EXPECT_EQ(ok({"get", "configmaps", "-n", ns, "-o", "name", "--chunk-size=3", "-l", "paged=yes"}),
            expected);

  Json page = Json::parse(ok({"get", "--raw", "/api/v1/namespaces/chunks/configmaps?limit=3"}));
  EXPECT_EQ(page["items"].size(), 3u);
  EXPECT_EQ(page["metadata"]["remainingItemCount"], 4);
  EXPECT_FALSE(page["metadata"].value("continue", "").empty());
}

TEST_F(KubectlApplyGet, DiffShowsWhatApplyWouldChange) {
  std::string ns = makeNamespace("diff");
  ok({"apply", "-f", "-"}, deployment(ns, "web", 2));
  EXPECT_EQ(run({"diff", "-f", "-"}, deployment(ns, "web", 2)).code, 0);
  Ran changed = run({"diff", "-f", "-"}, deployment(ns, "web", 6));
  EXPECT_EQ(changed.code, 1) << changed.err;
  EXPECT_THAT(changed.out, HasSubstr("-  replicas: 2\n+  replicas: 6\n"));
  EXPECT_EQ(getJson({"deployment", "web", "-n", ns})["spec"]["replicas"], 2);
}

}  // namespace
}  // namespace nodewright::apiserver::testing
