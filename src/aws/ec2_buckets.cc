#include "aws/ec2_buckets.h"

namespace nodewright::aws {

std::string_view ec2BucketClass(std::string_view action) {
  if (action == "RunInstances") {
    return ec2bucket::kRunInstances;
  }
  if (action == "TerminateInstances") {
    return ec2bucket::kTerminateInstances;
  }
  for (std::string_view prefix : {"Describe", "Get", "List", "Search"}) {
    if (action.starts_with(prefix)) {
      return ec2bucket::kDescribe;
    }
  }
  return ec2bucket::kMutating;
}

std::map<std::string, BucketLimits, std::less<>> ec2BucketLimits() {
  return {
      {std::string(ec2bucket::kRunInstances), {5, 2}},
      {std::string(ec2bucket::kTerminateInstances), {100, 5}},
      {std::string(ec2bucket::kMutating), {50, 5}},
      {std::string(ec2bucket::kDescribe), {100, 20}},
  };
}

}  // namespace nodewright::aws
