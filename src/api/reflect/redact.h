#pragma once

#include <string>
#include <string_view>

// The stand-in of a sensitive field's value (FieldDesc::sensitive, e.g. userData): what drift
// hashes, snapshots, diffs and messages see instead of the value. A digest, so a change still
// shows and the value never does; a stand-in given again is returned as it is, so a snapshot
// holding stand-ins hashes like the values it was made from.
namespace nodewright::api::reflect {

std::string redacted(std::string_view value);

}  // namespace nodewright::api::reflect
