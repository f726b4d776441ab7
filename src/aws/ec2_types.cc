#include "aws/ec2_types.h"

namespace nodewright::aws {

const NetworkCardInfo* InstanceTypeInfo::card(int index) const {
  for (const NetworkCardInfo& c : networkCards) {
    if (c.index == index) {
      return &c;
    }
  }
  return nullptr;
}

}  // namespace nodewright::aws
