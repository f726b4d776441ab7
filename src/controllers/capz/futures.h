#pragma once

#include <optional>
#include <string_view>
#include <utility>

#include "api/capz/future.h"
#include "lro/operation.h"
#include "lro/records.h"

// The CAPZ boundary of the futures engine: status.longRunningOperationStates (CAPZ's Future, in
// the API) converted to and from the engine's neutral operation records, as CAPZ's converters
// turn an SDK poller into a Future and back.
namespace nodewright::controllers::capz {

// Future.type for a verb ("PUT", "PATCH", "DELETE"), and the verb of a type (nullopt for a type
// the engine does not drive).
const char* futureType(lro::Verb verb);
std::optional<lro::Verb> futureVerb(std::string_view type);

api::capz::Future toFuture(const lro::OperationRecord& record);
// nullopt for a future of a type futureVerb() does not know.
std::optional<lro::OperationRecord> toRecord(const api::capz::Future& future);

// The records of `futures`, leaving out those toRecord() cannot read.
lro::OperationRecords toRecords(const api::capz::Futures& futures);
// Makes `futures` hold exactly `records`: a future under a record's key takes its token in
// place, one whose record is gone is removed, new records are appended. Futures toRecords()
// left out stay as they are (they are not the engine's to drop).
void fromRecords(const lro::OperationRecords& records, api::capz::Futures& futures);

// Runs `fn` on the records of `futures` and writes them back: for an engine call on an
// object's status outside the ServiceRunner.
template <class Fn>
auto withRecords(api::capz::Futures& futures, Fn&& fn) {
  lro::OperationRecords records = toRecords(futures);
  auto result = std::forward<Fn>(fn)(records);
  fromRecords(records, futures);
  return result;
}

}  // namespace nodewright::controllers::capz
