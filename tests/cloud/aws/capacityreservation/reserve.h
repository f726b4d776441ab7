#pragma once

#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <memory>
#include <string>

#include <pugixml.hpp>

#include "aws/ec2_client.h"
#include "emulators/ec2/emulator.h"
#include "emulators/ec2/resources.h"

// Capacity reservations for tests: made through EC2's CreateCapacityReservation as a user
// would, and given the kinds EC2 sells otherwise (capacity blocks, interruptible reservations)
// by editing the emulator's store.
namespace nodewright::cloud::aws::testing {

struct ReservationSpec {
  std::string instanceType = "m5.large";
  std::string zone = "us-east-1a";
  int count = 1;
  std::string matchCriteria = "open";
  std::map<std::string, std::string> tags;
  std::string endDate;  // RFC 3339; empty: unlimited
};

// The new reservation's id; "" (and a test failure) when EC2 refused.
inline std::string createReservation(nodewright::aws::Ec2Client& ec2, const ReservationSpec& s) {
  nodewright::aws::ParamPairs p{{"InstanceType", s.instanceType},
                                {"InstancePlatform", "Linux/UNIX"},
                                {"AvailabilityZone", s.zone},
                                {"InstanceCount", std::to_string(s.count)},
                                {"InstanceMatchCriteria", s.matchCriteria}};
  int n = 0;
  for (const auto& [key, value] : s.tags) {
    if (n == 0) {
      p.emplace_back("TagSpecifications.1.ResourceType", "capacity-reservation");
    }
    ++n;
    p.emplace_back("TagSpecifications.1.Tag." + std::to_string(n) + ".Key", key);
    p.emplace_back("TagSpecifications.1.Tag." + std::to_string(n) + ".Value", value);
  }
  if (!s.endDate.empty()) {
    p.emplace_back("EndDateType", "limited");
    p.emplace_back("EndDate", s.endDate);
  }
  auto body = ec2.query().call("CreateCapacityReservation", p);
  if (!body) {
    ADD_FAILURE() << body.error().code << ": " << body.error().message;
    return "";
  }
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(body->c_str()));
  return doc.document_element().child("capacityReservation").child_value("capacityReservationId");
}

// Changes reservation `id` in the emulator's store, as only EC2 itself can.
inline void editReservation(
    emulators::ec2::Ec2Emulator& emulator, const std::string& id,
    const std::function<void(emulators::ec2::CapacityReservationAttributes&)>& edit) {
  auto updated = emulator.engine().store().update(
      emulators::ec2::kind::kCapacityReservation, id, [&](emulators::Resource& r) {
        auto next = std::make_shared<emulators::ec2::CapacityReservationAttributes>(
            *r.as<emulators::ec2::CapacityReservationAttributes>());
        edit(*next);
        r.attributes = std::move(next);
      });
  ASSERT_TRUE(updated) << updated.error().message();
}

}  // namespace nodewright::cloud::aws::testing
