#pragma once

#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "emulators/arm/path.h"
#include "emulators/arm/protocol.h"
#include "emulators/arm/skus.h"
#include "emulators/arm/types.h"
#include "emulators/engine/engine.h"

// The ARM resources and their long-running operations, kept in the engine's store: a resource's
// store state is its provisioningState (Creating, Updating, Deleting, Succeeded, Failed), and an
// operation is a record whose state (InProgress, Succeeded, Failed, Canceled) changes at the
// same due time on the injected clock. Nothing runs in the background: the store applies what
// is due on each access, so thousands of operations in flight cost memory only.
//
// The protocol is ARM's async-operation RPC: PUT answers 201 (new) or 200 (update) with a
// non-terminal provisioningState, Azure-AsyncOperation and Retry-After; DELETE answers 202 with
// Location and Azure-AsyncOperation, and the Location URL answers 202 until it is done, then 204.
// Finished operations stay readable for a day of emulated time, and at most
// `maxRetainedOperations` of them are kept.
//
// Thread-safe: writes are serialized (a write checks, then changes, several resources); reads go
// to the store directly. A write computes everything that can fail before its first change, so
// a refused or failed request leaves the state as it was.
namespace nodewright::emulators::arm {

// A resource's own data; immutable once stored (a write stores a new one).
struct ArmResource : Attributes {
  std::string id;  // canonical casing, from the first PUT
  const ResourceType* type = nullptr;
  std::string parentKey;
  std::string location;           // its own, else its parent's or group's: where its operations run
  api::Json body;                 // as answered, without provisioningState and inline children
  std::vector<std::string> refs;  // lower-case ids of the resources it references
  std::string operationId;        // its latest long-running operation
  // A scale set's next instance number: a scale set never reuses an instance id.
  int64_t nextInstance = 0;
};

struct OperationRecord : Attributes {
  std::string subscription;
  std::string nameSpace;  // "Microsoft.Network": the operation URL's provider
  std::string location;
  std::string verb;  // "PUT", "PATCH", "DELETE"
  std::string resourceKey;
  const ResourceType* type = nullptr;
  std::string apiVersion;
  core::TimePoint started;
  core::TimePoint due;
  std::string errorCode;  // when it ends Failed
  std::string errorMessage;
};

// What a request brings besides its path and body.
struct RequestContext {
  std::string baseUrl;  // "https://127.0.0.1:PORT", for the async-operation URLs
  std::string apiVersion;
  // An injected failure of the provisioning: the operation is accepted and ends Failed.
  std::optional<InjectedError> failure;
};

constexpr std::string_view kOperationTable = "operations";

class ArmModel {
 public:
  // `engine` and `skus` must outlive the model.
  ArmModel(Engine& engine, const SkuCatalog& skus, size_t maxRetainedOperations = 10000);

  Reply put(const ResourcePath& path, const api::Json& body, const RequestContext& ctx);
  Reply patch(const ResourcePath& path, const api::Json& body, const RequestContext& ctx);
  Reply remove(const ResourcePath& path, const RequestContext& ctx);
  Reply get(const ResourcePath& path);
  Reply head(const ResourcePath& path);
  Reply list(const ResourcePath& path);

  // GET .../providers/{ns}/locations/{loc}/operations/{id} (Azure-AsyncOperation).
  Reply operationStatus(std::string_view subscription, std::string_view operationId);
  // GET .../providers/{ns}/locations/{loc}/operationResults/{id} (Location).
  Reply operationResult(std::string_view subscription, std::string_view operationId,
                        const RequestContext& ctx);

  // Operations not yet finished (benchmarks, tests).
  size_t operationsInFlight();
  // How long finished operations stay readable, in real (scaled) time.
  std::chrono::microseconds operationRetention() const;

  // The model's part of a state file (state.h): the store's resources and operations and what
  // the model keeps beside them, as of a moment between writes.
  core::Result<api::Json> saveState();
  // Replaces everything with a saved state and rebuilds the indexes. Invalid, with what is
  // wrong, when the state is malformed; the model is then unchanged. Call before serving.
  core::Status restoreState(const api::Json& state);

 private:
  struct Container {
    std::string location;  // what a child inherits
  };
  struct Prepared {
    ResourcePath path;
    std::shared_ptr<ArmResource> resource;
    std::optional<Resource> existing;
    // An inline child its parent's PUT no longer lists: the write deletes it.
    bool remove = false;
  };
  // What a scale set's write does to its instances (see planInstances()).
  struct InstancePlan {
    std::vector<Prepared> added;
    std::vector<Prepared> removed;
  };
  // (table, key) of a resource, as the indexes hold it.
  using Entry = std::pair<std::string, std::string>;

  std::optional<Resource> find(const ResourceType& type, const std::string& key);
  const ArmResource& data(const Resource& r) const { return *r.as<ArmResource>(); }
  ArmResult<Container> checkContainer(const ResourcePath& path, const RequestContext& ctx);
  // Validates `body` for `path` and builds what to store; `existing` when it is an update.
  ArmResult<std::shared_ptr<ArmResource>> prepare(const ResourcePath& path, api::Json body,
                                                  const std::optional<Resource>& existing,
                                                  const Container& container);
  ArmResult<std::vector<std::string>> checkReferences(const ResourcePath& path,
                                                      const api::Json& body);
  // The inline children of a parent body (a vnet's subnets), removed from it and prepared, and
  // the stored ones a listed field leaves out, to delete (see model_write.cc for the rule).
  ArmResult<std::vector<Prepared>> prepareInlineChildren(const ResourcePath& parent,
                                                         api::Json& body,
                                                         const std::string& location,
                                                         const RequestContext& ctx);
  ArmResult<void> validate(const ResourcePath& path, const api::Json& body);
  ArmResult<void> decorate(const ResourcePath& path, api::Json& body, const api::Json* existing);
  // Gives a NIC's IP configurations without privateIPAddress one of their subnet's addresses.
  ArmResult<void> assignPrivateAddresses(const ResourcePath& nic, api::Json& configs,
                                         const api::Json* existing);
  // Starts the writes of `items` (parent first), all ending at `due`; the reply's status.
  Reply write(std::vector<Prepared> items, std::string_view verb, const RequestContext& ctx,
              std::string_view op, bool sync);
  void store(const Prepared& item, std::string state, std::optional<Transition> next);
  // The instances to add or remove so that the scale set runs sku.capacity; sets the scale
  // set's nextInstance. Changes nothing.
  InstancePlan planInstances(Prepared& scaleSet);
  // Starts the plan: new instances are Creating until `next`; removed ones are Deleting, each
  // with its own delete operation, as if deleted one by one.
  void applyInstances(InstancePlan& plan, const Transition& next, const RequestContext& ctx);
  std::string startOperation(const ResourcePath& path, const ArmResource& resource,
                             std::string_view verb, core::TimePoint due, const RequestContext& ctx);
  // Cancels the create or update running on `r` (not one it shares with its parent).
  void cancelOperation(const Resource& r);
  // `r`'s own delete, overtaken by its parent's, ends with that one at `due`.
  void finishDeleteWith(const Resource& r, core::TimePoint due);
  // Forgets the oldest finished operations beyond the cap.
  void trimOperations();

  // The indexes (model_index.cc): adds what `item` stores.
  void index(const Prepared& item);
  std::vector<Resource> childrenOf(const std::string& key);
  std::vector<Resource> descendants(const std::string& key);
  // 400 (the type's inUseCode) when a resource outside `doomed` references one in it.
  ArmResult<void> checkNotInUse(const std::vector<Resource>& doomed);
  // Resources whose references name `key`, as stored now.
  std::vector<Resource> usersOf(const std::string& key);
  void sweepIndex();

  api::Json render(const Resource& r);
  Reply notFound(const ResourcePath& path);
  ArmError anotherOperation(const Resource& r, const RequestContext& ctx);
  // False when the operation is not stored (a bug: a write's reply must say how to follow it).
  [[nodiscard]] bool addAsyncHeaders(Reply& reply, const std::string& operationId,
                                     bool withLocation, const RequestContext& ctx);
  std::string operationUrl(const OperationRecord& op, const std::string& id, bool result,
                           const RequestContext& ctx) const;
  std::string retryAfter(core::TimePoint due) const;

  Engine& engine_;
  const SkuCatalog& skus_;
  const size_t maxRetainedOperations_;
  std::mutex writeMu_;
  uint32_t nextPublicIp_ = 0;  // GUARDED_BY(writeMu_)
  // Operation ids, oldest first, for the cap on retained operations.
  std::deque<std::string> operationOrder_;  // GUARDED_BY(writeMu_)
  // Hints checked against the store on use (deletions complete on the clock, unobserved):
  // parent key -> what sits in it (children; a group's resources; a scope's role assignments),
  // and referenced key -> what references it.
  std::map<std::string, std::set<Entry>> children_;  // GUARDED_BY(writeMu_)
  std::map<std::string, std::set<Entry>> users_;     // GUARDED_BY(writeMu_)
  size_t indexedSinceSweep_ = 0;                     // GUARDED_BY(writeMu_)
};

// Where a deleted resource's state goes at `due`: gone at once, or Failed when injected.
Transition deletion(core::TimePoint due, bool failed);
// The internal error a request gets when the emulator breaks its own invariant.
Reply internalError(std::string_view what);

bool isBusy(std::string_view provisioningState);
// A scale set's sku.capacity when it is an integer, else nullptr.
api::Json* capacityOf(api::Json& body);

}  // namespace nodewright::emulators::arm
