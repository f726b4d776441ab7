#pragma once

#include "aws/xml.h"

// The XML builders of every EC2 action's response, by the short names the actions use.
namespace nodewright::emulators::ec2 {

using aws::xml::addBool;
using aws::xml::addElement;
using aws::xml::addInt;
using aws::xml::addItem;
using aws::xml::addText;
using aws::xml::addTime;

}  // namespace nodewright::emulators::ec2
