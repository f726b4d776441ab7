#include "controllers/nodepool/restamp.h"

#include <optional>

#include "api/karpenter/well_known.h"

namespace nodewright::controllers::nodepool {
namespace {

using api::karpenter::NodeClaim;

bool needsRestamp(const NodeClaim& claim, const HashAnnotations& keys, const std::string& version) {
  const auto& annotations = claim.metadata.annotations;
  auto it = annotations.find(keys.version);
  const bool current = it != annotations.end() && it->second == version;
  return !current;
}

}  // namespace

bool isDrifted(const NodeClaim& claim) {
  for (const auto& condition : claim.status.conditions) {
    if (condition.type == api::karpenter::kDrifted) {
      return condition.status == "True";
    }
  }
  return false;
}

bool stamped(const std::map<std::string, std::string>& annotations, const HashAnnotations& keys,
             const std::string& hash, const std::string& version) {
  auto h = annotations.find(keys.hash);
  auto v = annotations.find(keys.version);
  return h != annotations.end() && h->second == hash && v != annotations.end() &&
         v->second == version;
}

core::Result<RestampResult> restampClaims(kube::Client& client,
                                          const std::vector<NodeClaim>& claims,
                                          const HashAnnotations& keys, const std::string& version,
                                          const StampFunc& stamp, runtime::Context& context) {
  const api::KindInfo& kind = kube::kindOf<NodeClaim>(client.registry());
  RestampResult result;
  std::optional<core::Error> firstError;
  for (const NodeClaim& listed : claims) {
    if (!needsRestamp(listed, keys, version)) {
      continue;
    }
    bool wrote = false;
    // The claim is judged again as read right before the write: it may have been stamped or
    // marked Drifted since the list.
    auto updated =
        kube::updateWithRetry(client, kind, "", listed.metadata.name, [&](api::Object& object) {
          wrote = false;
          NodeClaim* claim = object.as<NodeClaim>();
          if (!needsRestamp(*claim, keys, version)) {
            return false;
          }
          if (!context.leading()) {
            result.deposed = true;
            return false;
          }
          if (isDrifted(*claim)) {
            // Karpenter's rule: a drifted claim moves to the new version with its old hash, so
            // it stays drifted (and its snapshot still names what changed).
            claim->metadata.annotations[keys.version] = version;
          } else {
            stamp(claim->metadata.annotations);
          }
          wrote = true;
          return true;
        });
    if (result.deposed) {
      return result;
    }
    if (!updated) {
      if (!updated.error().is(kube::Reason::NotFound) && !firstError) {
        firstError =
            updated.error().toError().wrap("re-stamping NodeClaim " + listed.metadata.name);
      }
      continue;
    }
    if (wrote) {
      result.restamped.push_back(listed.metadata.name);
    }
  }
  if (firstError) {
    return core::fail(*firstError);
  }
  return result;
}

}  // namespace nodewright::controllers::nodepool
