#include "cmd/up/plan.h"

#include <map>

#include <fmt/format.h>

#include "api/crd/structural.h"

namespace nodewright::cmd::up {

namespace fs = std::filesystem;

std::vector<std::string> plan(const PlanOptions& o) {
  const fs::path& dir = o.dataDir;
  if (o.cloud == "aws") {
    return {
        "Karpenter controllers against AWS and the cluster of the kubeconfig (`nodewright "
        "controller` with the flags given after --cloud aws)"};
  }
  if (o.cloud == "azure") {
    return {
        "Cluster API and CAPZ controllers against Azure and the cluster of the kubeconfig "
        "(`nodewright controller --cloud azure` with the flags given after --cloud azure)"};
  }
  std::vector<std::string> out = {
      "embedded API server (SQLite in " + dir.string() + ", writes " +
          (dir / "kubeconfig").string() + ")",
      "EC2 emulator (writes " + (dir / "aws" / "config").string() + ", state in " +
          (dir / "ec2-state.json").string() + ")",
      "ARM (Azure Resource Manager) emulator (writes " + (dir / "azure" / "ca.crt").string() +
          ", state in " + (dir / "azure" / "arm-state.json").string() + ")",
      "node agent (kubelet and kube-scheduler for emulated machines; Deployment, ReplicaSet and "
      "DaemonSet controllers)",
      "Karpenter controllers (EC2NodeClass, provisioning, NodeClaim lifecycle and termination, "
      "garbage collection, drift and disruption) against the EC2 emulator",
      "Cluster API controllers (Cluster, MachineDeployment, MachineSet, Machine, MachinePool, "
      "bootstrap) and CAPZ controllers (AzureCluster, AzureMachine, AzureMachinePool) against the "
      "ARM emulator",
  };
  if (o.demo) {
    out.push_back(
        "demo workload (examples/demo: a NodePool and EC2NodeClass with network interfaces, pods "
        "that need nodes, a node-class change that drifts them; examples/capz/cluster.yaml: an "
        "Azure cluster with 20 machines)");
  }
  return out;
}

// Kinds per group and the problems that would keep an API server from accepting the CRDs; a
// problem is a bug in the model, reported but not fatal, since `up` must always come up.
void summarizeModel(const api::Registry& registry, const std::vector<api::Json>& crds,
                    Context& ctx) {
  std::map<std::string, std::vector<std::string>> byGroup;
  for (const api::KindInfo& k : registry.kinds()) {
    byGroup[k.group.empty() ? "core" : k.group].push_back(k.version + "/" + k.kind);
  }
  ctx.out << "resource model: " << registry.kinds().size() << " kinds in " << byGroup.size()
          << " groups, " << crds.size() << " CRDs\n";
  for (const auto& [group, kinds] : byGroup) {
    ctx.out << fmt::format("  {:<34} {} {}: {}\n", group, kinds.size(),
                           kinds.size() == 1 ? "kind" : "kinds", fmt::join(kinds, ", "));
  }
  size_t problems = 0;
  for (const api::Json& crd : crds) {
    for (const api::Json& v : crd["spec"]["versions"]) {
      for (const api::FieldError& e : api::crd::structuralErrors(v["schema"]["openAPIV3Schema"])) {
        ctx.err << "warning: CRD " << crd["metadata"]["name"].get<std::string>() << " "
                << v["name"].get<std::string>() << ": " << e.toString() << "\n";
        ++problems;
      }
    }
  }
  if (problems == 0) {
    ctx.out << "  every CRD schema is structural\n";
  }
}

}  // namespace nodewright::cmd::up
