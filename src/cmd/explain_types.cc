#include <algorithm>
#include <limits>
#include <memory>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <CLI/CLI.hpp>

#include "api/karpenter/nodeclaim.h"
#include "api/karpenter/nodepool.h"
#include "api/reflect/json.h"
#include "cloud/candidates.h"
#include "cloud/exclusions.h"
#include "cmd/command.h"
#include "cmd/inspect.h"

// `nodewright explain-types NODEPOOL`: every instance type the cloud knows, for one NodePool,
// as "fits" or "excluded" with the reason: first the node class's verdict (network interfaces,
// zones, what the cloud cannot run; the reasons the provider keeps), then the NodePool's own
// requirements and the offerings available now. It asks the cluster and the cloud as they are
// and writes nothing.
namespace nodewright::cmd {
namespace {

using api::karpenter::NodePool;

struct ExplainTypesFlags {
  InspectFlags inspect;
  std::string pool;
};

struct Verdict {
  std::string name{};
  bool fits = false;
  double price = 0;         // the cheapest available offering, when it fits
  std::string reason{};     // why not, when excluded
};

// The cloud's types for `pool`, each with its verdict, sorted by name.
std::vector<Verdict> verdicts(const NodePool& pool, const cloud::InstanceTypes& types) {
  // The pool's requirements as a claim with no requests: what the provisioner can launch for it.
  api::karpenter::NodeClaim probe;
  probe.spec.requirements = pool.spec.template_.spec.requirements;
  const cloud::CandidateTypes candidates = cloud::launchableTypes(types.compatible, probe);
  std::set<std::string> launchable;
  for (const cloud::InstanceType* type : candidates.types) {
    launchable.insert(type->name);
  }
  std::vector<Verdict> out;
  for (const cloud::InstanceType& type : types.compatible) {
    Verdict v{.name = type.name};
    if (launchable.contains(type.name)) {
      v.fits = true;
      v.price = type.cheapestAvailablePrice();
    } else if (type.cheapestAvailablePrice() == std::numeric_limits<double>::infinity()) {
      v.reason = "no available offering now (out of capacity, or no known price)";
    } else {
      v.reason = fmt::format("outside NodePool {}'s requirements (or their zones and capacity "
                             "types have no available offering)",
                             pool.metadata.name);
    }
    out.push_back(std::move(v));
  }
  for (const cloud::Exclusion& e : types.excluded) {
    out.push_back(Verdict{.name = e.instanceType, .reason = e.reason});
  }
  std::sort(out.begin(), out.end(),
            [](const Verdict& a, const Verdict& b) { return a.name < b.name; });
  return out;
}

void printText(std::ostream& out, const NodePool& pool, const std::vector<Verdict>& all,
               const cloud::InstanceTypes& types) {
  const size_t fitting =
      static_cast<size_t>(std::count_if(all.begin(), all.end(), [](const Verdict& v) {
        return v.fits;
      }));
  out << fmt::format("nodepool {}  nodeclass {}  {} of {} instance types fit\n",
                     pool.metadata.name, pool.spec.template_.spec.nodeClassRef.name, fitting,
                     all.size());
  size_t width = 0;
  for (const Verdict& v : all) {
    width = std::max(width, v.name.size());
  }
  for (const Verdict& v : all) {
    if (v.fits) {
      out << fmt::format("fits      {:<{}}  from ${:.4f}/h\n", v.name, width, v.price);
    } else {
      out << fmt::format("excluded  {:<{}}  {}\n", v.name, width, v.reason);
    }
  }
  const std::string summary = cloud::describeExclusions(
      types.excluded, types.compatible.size() + types.excluded.size(), 5);
  if (!summary.empty()) {
    out << "node class: " << summary << "\n";
  }
}

void printJson(std::ostream& out, const NodePool& pool, const std::vector<Verdict>& all) {
  api::Json doc = api::Json::object();
  doc["nodePool"] = pool.metadata.name;
  doc["nodeClass"] = pool.spec.template_.spec.nodeClassRef.name;
  doc["instanceTypes"] = api::Json::array();
  for (const Verdict& v : all) {
    api::Json entry = {{"name", v.name}, {"fits", v.fits}};
    if (v.fits) {
      entry["pricePerHour"] = v.price;
    } else {
      entry["reasons"] = api::Json::array({v.reason});
    }
    doc["instanceTypes"].push_back(std::move(entry));
  }
  out << doc.dump(2) << "\n";
}

int runExplainTypes(const ExplainTypesFlags& flags, Context& ctx) {
  auto opened = Inspection::open(flags.inspect, ctx);
  if (!opened) {
    return opened.error();
  }
  Inspection& in = **opened;
  auto pool = kube::Typed<NodePool>(in.client()).get("", flags.pool);
  if (!pool) {
    if (pool.error().is(kube::Reason::NotFound)) {
      ctx.err << "error: nodepool " << flags.pool << " not found\n";
    } else {
      ctx.err << "error: reading nodepool " << flags.pool << ": " << pool.error().describe()
              << "\n";
    }
    return kExitFailed;
  }
  auto types = in.cloud().instanceTypes(*pool);
  if (!types) {
    ctx.err << "error: instance types of nodepool " << flags.pool << ": "
            << types.error().message() << "\n";
    return kExitFailed;
  }
  const std::vector<Verdict> all = verdicts(*pool, *types);
  if (flags.inspect.output == "json") {
    printJson(ctx.out, *pool, all);
  } else {
    printText(ctx.out, *pool, all, *types);
  }
  return kExitOk;
}

}  // namespace

void addExplainTypesCommand(CLI::App& app, Context& ctx, Action& action) {
  auto flags = std::make_shared<ExplainTypesFlags>();
  CLI::App* sub = app.add_subcommand(
      "explain-types",
      "List every instance type for a NodePool: fits, or excluded and why");
  sub->add_option("NODEPOOL", flags->pool, "The NodePool's name")->required();
  addInspectFlags(*sub, flags->inspect);
  sub->callback(
      [flags, &ctx, &action] { action = [flags, &ctx] { return runExplainTypes(*flags, ctx); }; });
}

}  // namespace nodewright::cmd
