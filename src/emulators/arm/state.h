#pragma once

#include <cstdint>
#include <string_view>

#include "emulators/engine/store_codec.h"

// The ARM emulator's state file (ArmEmulatorOptions::stateFile):
//   {"format": kArmStateFormat, "version": kArmStateVersion,
//    "savedAt": emulated microseconds since the epoch,
//    "store": every resource and operation record (encodeStore), types by name,
//    "nextPublicIp": n, "operationOrder": [operation ids, oldest first]}
// The indexes of what sits in what and what references what are rebuilt from the resources.
// Issued tokens, the serving certificate and the PUT counters are not kept: clients fetch new
// tokens (as after a key rollover) and trust the new CA.
namespace nodewright::emulators::arm {

inline constexpr std::string_view kArmStateFormat = "nodewright-arm-emulator-state";
inline constexpr int64_t kArmStateVersion = 1;

// The codecs of every ARM store table: one per resource type (ArmResource) and the operations
// table (OperationRecord).
const AttributeCodecs& armAttributeCodecs();

}  // namespace nodewright::emulators::arm
