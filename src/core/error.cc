#include "core/error.h"

namespace nodewright::core {

const char* codeName(Code code) {
  switch (code) {
    case Code::NotFound:
      return "NotFound";
    case Code::Conflict:
      return "Conflict";
    case Code::InsufficientCapacity:
      return "InsufficientCapacity";
    case Code::Throttled:
      return "Throttled";
    case Code::Invalid:
      return "Invalid";
    case Code::Internal:
      return "Internal";
  }
  return "Unknown";
}

Error Error::wrap(std::string_view context) const {
  std::string message(context);
  message += ": ";
  message += message_;
  return Error(code_, std::move(message));
}

}  // namespace nodewright::core
