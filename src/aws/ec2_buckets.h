#pragma once

#include <map>
#include <string>
#include <string_view>

// EC2's API request-rate buckets, as AWS publishes them:
// https://docs.aws.amazon.com/ec2/latest/devguide/ec2-api-throttling.html
// One definition for both sides: the client stays under them, the emulator enforces them.
namespace nodewright::aws {

// EC2's bucket classes, as the client's rate limiter and the emulator's throttling use them.
namespace ec2bucket {
inline constexpr std::string_view kRunInstances = "RunInstances";              // 5, 2/s
inline constexpr std::string_view kTerminateInstances = "TerminateInstances";  // 100, 5/s
inline constexpr std::string_view kMutating = "mutating";                      // 50, 5/s
inline constexpr std::string_view kDescribe = "describe";                      // 100, 20/s
}  // namespace ec2bucket

struct BucketLimits {
  int size = 0;
  double refillPerSecond = 0;
};

// The bucket class of an EC2 action: its own for RunInstances and TerminateInstances, describe
// for the non-mutating Describe*, Get*, List* and Search*, mutating for the rest.
std::string_view ec2BucketClass(std::string_view action);
// AWS's published sizes of the classes above.
std::map<std::string, BucketLimits, std::less<>> ec2BucketLimits();

}  // namespace nodewright::aws
