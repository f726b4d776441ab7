#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <pugixml.hpp>

#include "aws/error.h"
#include "core/time.h"

// EC2 Query protocol response documents (Version 2016-11-15), built with pugixml.
namespace nodewright::aws::xml {

inline constexpr std::string_view kEc2Namespace = "http://ec2.amazonaws.com/doc/2016-11-15/";

// One successful response:
//   <?xml version="1.0" encoding="UTF-8"?>
//   <{Action}Response xmlns="http://ec2.amazonaws.com/doc/2016-11-15/">
//     <requestId>...</requestId> ...members added to root()...
//   </{Action}Response>
// Lists are wrappers (e.g. <regionInfo>) holding <item> elements; see addItem().
class Ec2Response {
 public:
  Ec2Response(std::string_view action, std::string_view requestId);
  Ec2Response(const Ec2Response&) = delete;
  Ec2Response& operator=(const Ec2Response&) = delete;

  pugi::xml_node root() const { return root_; }
  std::string str() const;

 private:
  pugi::xml_document doc_;
  pugi::xml_node root_;
};

// Builders that return the new element, so calls nest. Names are element names in EC2's
// lowerCamelCase ("instanceId", "instancesSet").
pugi::xml_node addElement(pugi::xml_node parent, const char* name);
pugi::xml_node addText(pugi::xml_node parent, const char* name, std::string_view text);
pugi::xml_node addInt(pugi::xml_node parent, const char* name, std::int64_t value);
pugi::xml_node addBool(pugi::xml_node parent, const char* name, bool value);
// ISO 8601 in UTC with milliseconds, as EC2 writes launchTime: 2016-11-15T10:00:00.000Z.
pugi::xml_node addTime(pugi::xml_node parent, const char* name, core::TimePoint time);
// The next <item> of a list wrapper.
pugi::xml_node addItem(pugi::xml_node list);

std::string formatTimestamp(core::TimePoint time);

// The error document exactly as EC2 returns it (botocore's EC2QueryParser reads this shape):
//   <?xml version="1.0" encoding="UTF-8"?>
//   <Response><Errors><Error><Code>..</Code><Message>..</Message></Error></Errors>
//   <RequestID>..</RequestID></Response>
// The HTTP status to send is error.httpStatus.
std::string ec2ErrorDocument(const ApiError& error, std::string_view requestId);

// Reads an error document written as above (the client side); nullopt unless it has that
// shape. httpStatus is taken from the response.
std::optional<ApiError> parseEc2Error(std::string_view body, int httpStatus);

}  // namespace nodewright::aws::xml
