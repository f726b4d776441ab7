#pragma once

#include <string>

#include <nlohmann/json.hpp>

// EventBridge events as the interruption queue receives them, in the shapes EC2 and AWS Health
// publish (the envelope's version, id, detail-type, source, account, time, region, resources,
// and each type's detail). Header-only: the parser's tests and the controller's moto test share
// them.
namespace nodewright::cloud::aws::testing {

inline nlohmann::json ec2Event(const std::string& detailType, const std::string& instanceId,
                               nlohmann::json detail, const std::string& time) {
  return {
      {"version", "0"},
      {"id", "7e4d6d3a-5b8e-4c1f-9a0b-" + instanceId.substr(2) + "0"},
      {"detail-type", detailType},
      {"source", "aws.ec2"},
      {"account", "123456789012"},
      {"time", time},
      {"region", "us-east-1"},
      {"resources", {"arn:aws:ec2:us-east-1:123456789012:instance/" + instanceId}},
      {"detail", std::move(detail)},
  };
}

inline std::string spotInterruptionWarning(const std::string& instanceId,
                                           const std::string& time = "2026-11-29T15:00:00Z") {
  return ec2Event("EC2 Spot Instance Interruption Warning", instanceId,
                  {{"instance-id", instanceId}, {"instance-action", "terminate"}}, time)
      .dump();
}

inline std::string rebalanceRecommendation(const std::string& instanceId,
                                           const std::string& time = "2026-11-29T15:00:00Z") {
  return ec2Event("EC2 Instance Rebalance Recommendation", instanceId,
                  {{"instance-id", instanceId}}, time)
      .dump();
}

inline std::string stateChange(const std::string& instanceId, const std::string& state,
                               const std::string& time = "2026-11-29T15:00:00Z") {
  return ec2Event("EC2 Instance State-change Notification", instanceId,
                  {{"instance-id", instanceId}, {"state", state}}, time)
      .dump();
}

inline std::string capacityReservationInterruption(
    const std::string& instanceId, const std::string& time = "2026-11-29T15:00:00Z") {
  return ec2Event("EC2 Capacity Reservation Instance Interruption Warning", instanceId,
                  {{"instance-id", instanceId}, {"instance-action", "terminate"}}, time)
      .dump();
}

inline std::string healthEvent(const std::vector<std::string>& instanceIds,
                               const std::string& service = "EC2",
                               const std::string& category = "scheduledChange",
                               const std::string& time = "2026-11-29T15:00:00Z") {
  nlohmann::json entities = nlohmann::json::array();
  for (const auto& id : instanceIds) {
    entities.push_back({{"entityValue", id}});
  }
  return nlohmann::json{
      {"version", "0"},
      {"id", "5c1a2b3c-0d4e-4f5a-8b6c-7d8e9f0a1b2c"},
      {"detail-type", "AWS Health Event"},
      {"source", "aws.health"},
      {"account", "123456789012"},
      {"time", time},
      {"region", "us-east-1"},
      {"resources", instanceIds},
      {"detail",
       {{"eventArn",
         "arn:aws:health:us-east-1::event/EC2/AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED/"
         "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED_1"},
        {"service", service},
        {"eventTypeCode", "AWS_EC2_INSTANCE_RETIREMENT_SCHEDULED"},
        {"eventTypeCategory", category},
        {"startTime", "Sun, 06 Dec 2026 15:00:00 GMT"},
        {"endTime", "Sun, 06 Dec 2026 17:00:00 GMT"},
        {"eventDescription",
         {{{"language", "en_US"},
           {"latestDescription", "EC2 has detected degradation of the underlying hardware."}}}},
        {"affectedEntities", entities}}},
  }
      .dump();
}

}  // namespace nodewright::cloud::aws::testing
