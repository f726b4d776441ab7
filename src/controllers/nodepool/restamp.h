#pragma once

#include <functional>
#include <map>
#include <string>
#include <vector>

#include "api/karpenter/nodeclaim.h"
#include "api/object.h"
#include "core/error.h"
#include "kube/client.h"
#include "runtime/api_outcome.h"
#include "runtime/reconciler.h"

// What the NodePool and EC2NodeClass hash controllers share (Karpenter's nodepool/hash and
// nodeclass/hash controllers, and its drift-hash-versioning design): an owner (a NodePool or a
// node class) carries the hash of its static fields and the version of the hash algorithm; a
// NodeClaim carries the ones it was launched with. When the owner's version is not the running
// one, the algorithm changed under the fleet (an upgrade), so the claims' hashes can no longer
// be compared: each claim still on another version is re-stamped with the current hash, and so
// drifts on nothing the upgrade did. Claims already Drifted take the new version but keep their
// old hash and snapshot (as Karpenter does), so they stay drifted.
namespace nodewright::controllers::nodepool {

// The pair of annotations one owner kind keeps on itself and on its claims.
struct HashAnnotations {
  const char* hash;
  const char* version;
};

// Writes the current hash, version and static snapshot of an owner into a claim's annotations.
using StampFunc = std::function<void(std::map<std::string, std::string>& annotations)>;

// Drifted=True: the drift controller has already decided this claim differs from its owner.
bool isDrifted(const api::karpenter::NodeClaim& claim);

struct RestampResult {
  std::vector<std::string> restamped;  // claim names, in the order given
  bool deposed = false;                // leadership was lost: stopped before writing more
};

// Re-stamps those of `claims` whose `keys.version` annotation is not `version` (a Drifted one
// gets the version only). Each claim is read again and re-checked before its write
// (kube::updateWithRetry, conflicts retried); a claim deleted meanwhile is skipped. Every claim is
// tried; the first error is returned after the others were written, so a retry has less left to do.
core::Result<RestampResult> restampClaims(kube::Client& client,
                                          const std::vector<api::karpenter::NodeClaim>& claims,
                                          const HashAnnotations& keys, const std::string& version,
                                          const StampFunc& stamp, runtime::Context& context);

// Whether `annotations` already hold `hash` at `version`.
bool stamped(const std::map<std::string, std::string>& annotations, const HashAnnotations& keys,
             const std::string& hash, const std::string& version);

// Sets the hash and version annotations of the cluster-scoped owner `name` (a NodePool or an
// EC2NodeClass). `hashOf` is applied to the owner as read just before the write, so a spec
// change racing with this write is what gets hashed. Returns whether a write happened (false
// when already current, gone, or leadership was lost). A Conflict past the retries is returned.
template <class T>
kube::ApiResult<bool> annotateOwner(kube::Client& client, const std::string& name,
                                    const HashAnnotations& keys,
                                    const std::function<std::string(const T&)>& hashOf,
                                    const std::string& version, runtime::Context& context) {
  bool wrote = false;
  auto result = kube::updateWithRetry(
      client, kube::kindOf<T>(client.registry()), "", name, [&](api::Object& object) {
        wrote = false;
        T* owner = object.template as<T>();
        const std::string hash = hashOf(*owner);
        if (stamped(owner->metadata.annotations, keys, hash, version) || !context.leading()) {
          return false;
        }
        owner->metadata.annotations[keys.hash] = hash;
        owner->metadata.annotations[keys.version] = version;
        wrote = true;
        return true;
      });
  if (!result) {
    if (result.error().is(kube::Reason::NotFound)) {
      return false;
    }
    return tl::unexpected(result.error());
  }
  return wrote;
}

using runtime::apiFailure;

}  // namespace nodewright::controllers::nodepool
