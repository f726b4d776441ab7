#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "emulators/ec2/action.h"
#include "emulators/ec2/instance.h"
#include "emulators/ec2/launch.h"
#include "emulators/ec2/launch_validation.h"
#include "emulators/ec2/subnet_addresses.h"

// Builds the stored instances of one launch (launch.cc): everything but the addresses is the
// same for each instance of the launch; ids of interfaces, volumes and spot requests are hashes
// of the reservation and launch index, so a seeded run gives the same ids.
namespace nodewright::emulators::ec2 {

struct InterfaceAddressing {
  std::string subnetId;
  std::string cidrBlock;
  InterfaceAddresses addresses;
};

// What one instance got from the subnets: per interface, and the leases to give back.
struct InstanceAddressing {
  std::vector<InterfaceAddressing> interfaces;
  std::vector<AddressLease> leases;
};

class InstanceBuilder {
 public:
  // `interfaces` are the launch's effective interfaces (validated), `interfaceGroups` the
  // group names of each; `image` and `subnet` the resolved resources.
  InstanceBuilder(ActionContext& ctx, const LaunchPlan& plan, const Resource& image,
                  const Resource& subnet, std::vector<GroupRef> groups,
                  std::vector<std::vector<GroupRef>> interfaceGroups,
                  std::vector<NetworkInterfaceSpec> interfaces, std::string reservationId);

  // The instance with launch index `index`, pending until the launch latency has passed.
  NewResource build(int64_t index, const InstanceAddressing& addressing);

 private:
  InstanceInterface buildInterface(int64_t index, size_t slot,
                                   const InterfaceAddressing& addressing) const;
  bool wantsPublicIp() const;

  ActionContext& ctx_;
  const LaunchPlan& plan_;
  std::vector<std::vector<GroupRef>> interfaceGroups_;
  std::vector<NetworkInterfaceSpec> interfaces_;
  std::string reservationId_;
  bool mapPublicIp_ = false;
  InstanceAttributes common_;  // the fields every instance of the launch shares
  Tags tags_;
};

}  // namespace nodewright::emulators::ec2
