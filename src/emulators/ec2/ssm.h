#pragma once

#include <string>
#include <string_view>

#include "emulators/ec2/world.h"

// The SSM parameters of the world over the AWS JSON 1.1 protocol (X-Amz-Target
// AmazonSSM.<Operation>), enough for Karpenter's AMI aliases: GetParameter and GetParameters.
namespace nodewright::emulators::ec2 {

struct SsmReply {
  int status = 200;
  std::string body;       // application/x-amz-json-1.1
  std::string errorCode;  // empty on success; for the admin stats
};

// `operation` is the part of X-Amz-Target after "AmazonSSM.". Errors use the JSON protocol's
// shape {"__type": "ParameterNotFound", "message": "..."}.
SsmReply serveSsm(std::string_view operation, std::string_view body, const World& world);

}  // namespace nodewright::emulators::ec2
