#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <tl/expected.hpp>

#include "api/reflect/json.h"
#include "api/registry.h"
#include "apiserver/errors.h"
#include "apiserver/resources.h"
#include "apiserver/storage/store.h"
#include "core/clock.h"

// Object semantics of the Kubernetes API over the store: server-set metadata, generation,
// status/spec separation, optimistic concurrency, defaulting and validation from the resource
// model, finalizers and graceful deletion. HTTP-free, so the garbage collector and the
// subresources use the same rules as requests.
namespace nodewright::apiserver::rest {

template <class T>
using ApiResult = tl::expected<T, ApiError>;

enum class FieldValidation { Ignore, Warn, Strict };

struct WriteOptions {
  bool dryRun = false;
  FieldValidation fieldValidation = FieldValidation::Warn;
  // Unknown-field warnings for the Warning header.
  std::vector<std::string>* warnings = nullptr;
};

enum class Propagation { Background, Foreground, Orphan };

struct DeleteOptions {
  bool dryRun = false;
  std::optional<int64_t> gracePeriodSeconds;
  std::optional<Propagation> propagation;
  std::string preconditionUid;
  std::string preconditionResourceVersion;
};

// Where an object lives: "<plural>[.<group>]/<namespace>/<name>".
std::string storageKey(const Resource& resource, std::string_view ns, std::string_view name);
std::string storagePrefix(const Resource& resource, std::string_view ns);

// The subresource name for internal writes that change spec and status together (binding).
inline constexpr const char* kWholeObject = "*";

// Turns the current object into the next one; errors abort the update.
using Transform = std::function<ApiResult<api::Json>(const api::Json& current)>;

class Objects {
 public:
  Objects(const ResourceTable& resources, storage::Store& store, const core::Clock& clock,
          const api::Registry& registry);

  ApiResult<storage::StoredPtr> get(const Resource& resource, std::string_view ns,
                                    std::string_view name) const;

  ApiResult<api::Json> create(const Resource& resource, std::string_view ns, api::Json body,
                              const WriteOptions& options);

  // Read-transform-write with retries on conflicts the client did not ask to see. The result's
  // metadata.resourceVersion, when set and different from the current one, is a precondition.
  // `subresource` "status" writes only status; "" writes all but status (when the kind has a
  // status subresource). `createIfMissing` (server-side apply) creates from transform({}).
  ApiResult<api::Json> update(const Resource& resource, std::string_view ns, std::string_view name,
                              std::string_view subresource, const Transform& transform,
                              const WriteOptions& options, bool createIfMissing = false);

  // Returns the object as deleted (or as marked for deletion, when finalizers or a grace
  // period keep it).
  ApiResult<api::Json> remove(const Resource& resource, std::string_view ns, std::string_view name,
                              const DeleteOptions& options);

  const ResourceTable& resources() const { return resources_; }
  storage::Store& store() { return store_; }
  const core::Clock& clock() const { return clock_; }
  std::string now() const;

 private:
  ApiResult<api::Json> canonical(const Resource& resource, const api::Json& object,
                                 const WriteOptions& options) const;
  ApiResult<api::Json> prepareUpdate(const Resource& resource, std::string_view subresource,
                                     const api::Json& current, api::Json next,
                                     const WriteOptions& options) const;
  ApiResult<storage::StoredPtr> commit(const Resource& resource, std::string_view name,
                                       storage::WriteOp op, bool dryRun);

  const ResourceTable& resources_;
  storage::Store& store_;
  const core::Clock& clock_;
  const api::Registry& registry_;
};

// The status of a successful deletion, as kube-apiserver returns for some kinds.
api::Json successStatus(const Resource& resource, std::string_view name, std::string_view uid);

}  // namespace nodewright::apiserver::rest
