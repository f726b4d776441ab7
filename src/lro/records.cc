#include "lro/records.h"

#include <algorithm>
#include <utility>

namespace nodewright::lro {

OperationKey operationKey(const ResourceRef& resource, Verb verb) {
  OperationKey key;
  key.verb = verb;
  key.serviceName = resource.serviceName;
  key.resourceGroup = resource.resourceGroup;
  key.name = resource.name;
  return key;
}

const OperationRecord* findRecord(const OperationRecords& records, const OperationKey& key) {
  auto it = std::find_if(records.begin(), records.end(),
                         [&](const OperationRecord& r) { return r.key == key; });
  return it == records.end() ? nullptr : &*it;
}

void setRecord(OperationRecords& records, OperationRecord record) {
  for (OperationRecord& r : records) {
    if (r.key == record.key) {
      r = std::move(record);
      return;
    }
  }
  records.push_back(std::move(record));
}

bool removeRecord(OperationRecords& records, const OperationKey& key) {
  return std::erase_if(records, [&](const OperationRecord& r) { return r.key == key; }) > 0;
}

}  // namespace nodewright::lro
