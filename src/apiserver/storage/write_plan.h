#pragma once

#include <cstdint>
#include <string>

#include "apiserver/storage/store.h"

// The pure part of a write: checking its precondition against the object's latest state and
// building the state it publishes. The store runs it on its writer thread, before the commit.
namespace nodewright::apiserver::storage {

struct PlannedWrite {
  EventType type = EventType::Added;
  // The new state; for Deleted, the last state stamped with the deletion's revision.
  StoredPtr stored;
  // The state this write replaces; nullptr when it creates the key.
  StoredPtr previous;
};

// `current` is the key's latest state (nullptr: absent); `revision` is the one this write gets
// if it passes. Errors: Code::Conflict (precondition), Code::NotFound (delete or update of a
// missing key), Code::Invalid (malformed op).
core::Result<PlannedWrite> planWrite(WriteOp op, const StoredPtr& current, int64_t revision);

// An immutable stored object whose metadata.resourceVersion is set to `revision`.
// REQUIRES: object is a JSON object whose metadata, if present, is an object.
StoredPtr stampStored(std::string key, int64_t revision, api::Json object);

}  // namespace nodewright::apiserver::storage
