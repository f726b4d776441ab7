#pragma once

#include <cstdint>
#include <string_view>

#include "emulators/engine/store_codec.h"

// The EC2 emulator's state file (Ec2EmulatorOptions::stateFile):
//   {"format": kEc2StateFormat, "version": kEc2StateVersion,
//    "savedAt": emulated microseconds since the epoch,
//    "store": every resource with its attributes (encodeStore),
//    "ssmParameters": {name: value}, "ssmVersions": {name: version}}
// The world (VPCs, subnets, groups, images, SSM parameters) is seeded from the configuration
// only into a fresh state; a restored one keeps the file's, so what the API changed (subnet
// addresses, tags, registered images, PutParameter) survives. The catalog, latencies and
// faults are configuration and come from the options of each start.
namespace nodewright::emulators::ec2 {

inline constexpr std::string_view kEc2StateFormat = "nodewright-ec2-emulator-state";
inline constexpr int64_t kEc2StateVersion = 1;

// The codecs of every EC2 store type: vpc, subnet (with its address bitmap once launches used
// it), security-group, image, launch-template, instance, reservation, fleet.
const AttributeCodecs& ec2AttributeCodecs();

}  // namespace nodewright::emulators::ec2
