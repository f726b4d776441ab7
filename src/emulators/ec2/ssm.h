#pragma once

#include <string>
#include <string_view>

#include "emulators/ec2/world.h"

// The SSM parameters of the world over the AWS JSON 1.1 protocol (X-Amz-Target
// AmazonSSM.<Operation>), enough for Karpenter's AMI aliases: GetParameter and GetParameters,
// and PutParameter to change them.
namespace nodewright::emulators::ec2 {

struct SsmReply {
  int status = 200;
  std::string body;       // application/x-amz-json-1.1
  std::string errorCode;  // empty on success; for the admin stats
};

// `operation` is the part of X-Amz-Target after "AmazonSSM.". Errors use the JSON protocol's
// shape {"__type": "ParameterNotFound", "message": "..."}.
// PutParameter is left to putParameter(): the caller holds its lock for writers.
SsmReply serveSsm(std::string_view operation, std::string_view body, const World& world);

// PutParameter: sets a String parameter, a new one or, with Overwrite, one that exists (its
// version goes up by one). Unlike SSM, public names (/aws/service/...) may be written: a test
// stands in for AWS publishing a new EKS image behind an alias this way.
SsmReply putParameter(std::string_view body, World& world);

}  // namespace nodewright::emulators::ec2
