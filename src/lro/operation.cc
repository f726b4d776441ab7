#include "lro/operation.h"

namespace nodewright::lro {

const char* verbName(Verb verb) {
  switch (verb) {
    case Verb::Put:
      return "PUT";
    case Verb::Patch:
      return "PATCH";
    case Verb::Delete:
      return "DELETE";
  }
  return "PUT";
}

const char* kindName(CallError::Kind kind) {
  switch (kind) {
    case CallError::Kind::NotFound:
      return "NotFound";
    case CallError::Kind::Conflict:
      return "Conflict";
    case CallError::Kind::Throttled:
      return "Throttled";
    case CallError::Kind::Transient:
      return "Transient";
    case CallError::Kind::Invalid:
      return "Invalid";
    case CallError::Kind::Auth:
      return "Auth";
    case CallError::Kind::BadToken:
      return "BadToken";
  }
  return "Transient";
}

}  // namespace nodewright::lro
