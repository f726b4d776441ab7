#pragma once

#include <string>
#include <vector>

#include "lro/operation.h"

// The operations in flight on an object's resources, as the engine keeps them between calls:
// each one's resume token under the key of the request that started it. The engine is the only
// writer. Callers persist the records with the object and convert them to their API's shape
// (CAPZ: status.longRunningOperationStates, see controllers/capz/futures.h).
namespace nodewright::lro {

// Which request on which resource: at most one operation of each verb per resource. The
// resource group is part of the key, so same-named resources of one service in different
// groups are kept apart.
struct OperationKey {
  Verb verb = Verb::Put;
  std::string serviceName;
  std::string resourceGroup;
  std::string name;

  bool operator==(const OperationKey&) const = default;
};

// The key of `verb` on `resource`.
OperationKey operationKey(const ResourceRef& resource, Verb verb);

struct OperationRecord {
  OperationKey key;
  std::string resumeToken;  // opaque: the cloud's poller, serialized (OpState::resumeToken)
};

using OperationRecords = std::vector<OperationRecord>;

// The record under `key`, or nullptr; valid until `records` changes.
const OperationRecord* findRecord(const OperationRecords& records, const OperationKey& key);
// Adds the record, or replaces the one under its key.
void setRecord(OperationRecords& records, OperationRecord record);
// Removes the record under `key`; true when there was one.
bool removeRecord(OperationRecords& records, const OperationKey& key);

}  // namespace nodewright::lro
