#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/registry.h"

namespace nodewright::api {

namespace {

constexpr const char* kReady = R"(.status.conditions[?(@.type=="Ready")].status)";
constexpr const char* kAge = ".metadata.creationTimestamp";

}  // namespace

void registerKarpenterKinds(Registry& registry) {
  using karpenter::EC2NodeClass;
  using karpenter::NodeClaim;
  using karpenter::NodePool;

  KindInfo pool = kindFor<NodePool>("karpenter.sh", "v1", "NodePool", "nodepools");
  pool.categories = {"karpenter"};
  pool.printerColumns = {
      {"NodeClass", "string", ".spec.template.spec.nodeClassRef.name", "", 0},
      {"Nodes", "string", ".status.nodes", "", 0},
      {"Ready", "string", kReady, "", 0},
      {"Age", "date", kAge, "", 0},
      {"Weight", "integer", ".spec.weight", "", 1},
      {"CPU", "string", ".status.resources.cpu", "", 1},
      {"Memory", "string", ".status.resources.memory", "", 1},
  };
  registry.add(std::move(pool));

  KindInfo claim = kindFor<NodeClaim>("karpenter.sh", "v1", "NodeClaim", "nodeclaims");
  claim.categories = {"karpenter"};
  claim.printerColumns = {
      {"Type", "string", R"(.metadata.labels.node\.kubernetes\.io/instance-type)", "", 0},
      {"Capacity", "string", R"(.metadata.labels.karpenter\.sh/capacity-type)", "", 0},
      {"Zone", "string", R"(.metadata.labels.topology\.kubernetes\.io/zone)", "", 0},
      {"Node", "string", ".status.nodeName", "", 0},
      {"Ready", "string", kReady, "", 0},
      {"Age", "date", kAge, "", 0},
      {"ImageID", "string", ".status.imageID", "", 1},
      {"ID", "string", ".status.providerID", "", 1},
      {"NodePool", "string", R"(.metadata.labels.karpenter\.sh/nodepool)", "", 1},
      {"NodeClass", "string", ".spec.nodeClassRef.name", "", 1},
  };
  registry.add(std::move(claim));

  KindInfo nodeClass =
      kindFor<EC2NodeClass>("karpenter.k8s.aws", "v1", "EC2NodeClass", "ec2nodeclasses");
  nodeClass.shortNames = {"ec2nc", "ec2ncs"};
  nodeClass.categories = {"karpenter"};
  nodeClass.printerColumns = {
      {"Ready", "string", kReady, "", 0},
      {"Age", "date", kAge, "", 0},
      {"Role", "string", ".spec.role", "", 1},
  };
  registry.add(std::move(nodeClass));
}

}  // namespace nodewright::api
