#pragma once

#include <string_view>

#include "api/capz/future.h"
#include "lro/operation.h"

// The futures parked in an object's status.longRunningOperationStates, keyed by (name,
// serviceName, type) as the CRD's list-map declares. The engine is the only writer; callers
// persist the list with the object's status.
namespace nodewright::lro {

using Future = api::capz::Future;
using Futures = api::capz::Futures;

// The future of `verb` on `resource`, or nullptr. The pointer is valid until `futures` changes.
const Future* findFuture(const Futures& futures, const ResourceRef& resource, Verb verb);
// Adds the future, or replaces the one with its key.
void setFuture(Futures& futures, Future future);
// Removes the future of `verb` on `resource`; true when there was one.
bool removeFuture(Futures& futures, const ResourceRef& resource, Verb verb);

// A future for an operation on `resource` that `token` resumes.
Future makeFuture(const ResourceRef& resource, Verb verb, std::string token);

}  // namespace nodewright::lro
