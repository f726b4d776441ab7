#include "controllers/capz/futures.h"

#include <algorithm>
#include <utility>
#include <vector>

#include "api/capz/conditions.h"

namespace nodewright::controllers::capz {

const char* futureType(lro::Verb verb) {
  switch (verb) {
    case lro::Verb::Put:
      return api::capz::kPutFuture;
    case lro::Verb::Patch:
      return api::capz::kPatchFuture;
    case lro::Verb::Delete:
      return api::capz::kDeleteFuture;
  }
  return api::capz::kPutFuture;
}

std::optional<lro::Verb> futureVerb(std::string_view type) {
  for (lro::Verb verb : {lro::Verb::Put, lro::Verb::Patch, lro::Verb::Delete}) {
    if (type == futureType(verb)) {
      return verb;
    }
  }
  return std::nullopt;
}

api::capz::Future toFuture(const lro::OperationRecord& record) {
  api::capz::Future f;
  f.type = futureType(record.key.verb);
  f.resourceGroup = record.key.resourceGroup;
  f.serviceName = record.key.serviceName;
  f.name = record.key.name;
  f.data = record.resumeToken;
  return f;
}

std::optional<lro::OperationRecord> toRecord(const api::capz::Future& future) {
  std::optional<lro::Verb> verb = futureVerb(future.type);
  if (!verb) {
    return std::nullopt;
  }
  lro::OperationRecord r;
  r.key.verb = *verb;
  r.key.serviceName = future.serviceName;
  r.key.resourceGroup = future.resourceGroup;
  r.key.name = future.name;
  r.resumeToken = future.data;
  return r;
}

lro::OperationRecords toRecords(const api::capz::Futures& futures) {
  lro::OperationRecords records;
  records.reserve(futures.size());
  for (const api::capz::Future& f : futures) {
    if (std::optional<lro::OperationRecord> r = toRecord(f)) {
      records.push_back(std::move(*r));
    }
  }
  return records;
}

void fromRecords(const lro::OperationRecords& records, api::capz::Futures& futures) {
  std::vector<bool> placed(records.size(), false);
  api::capz::Futures out;
  out.reserve(futures.size() + records.size());
  for (api::capz::Future& f : futures) {
    std::optional<lro::OperationRecord> existing = toRecord(f);
    if (!existing) {
      out.push_back(std::move(f));
      continue;
    }
    // In place, so that a status rewritten with the same operations is unchanged.
    auto it = std::find_if(records.begin(), records.end(),
                           [&](const lro::OperationRecord& r) { return r.key == existing->key; });
    const size_t i = static_cast<size_t>(it - records.begin());
    if (it != records.end() && !placed[i]) {
      placed[i] = true;
      f.data = it->resumeToken;
      out.push_back(std::move(f));
    }
  }
  for (size_t i = 0; i < records.size(); ++i) {
    if (!placed[i]) {
      out.push_back(toFuture(records[i]));
    }
  }
  futures = std::move(out);
}

}  // namespace nodewright::controllers::capz
