#include "aws/xml.h"

#include <chrono>
#include <cstdio>

namespace nodewright::aws::xml {
namespace {

class StringWriter final : public pugi::xml_writer {
 public:
  explicit StringWriter(std::string& out) : out_(out) {}
  void write(const void* data, size_t size) override {
    out_.append(static_cast<const char*>(data), size);
  }

 private:
  std::string& out_;
};

void addDeclaration(pugi::xml_document& doc) {
  pugi::xml_node declaration = doc.append_child(pugi::node_declaration);
  declaration.append_attribute("version") = "1.0";
  declaration.append_attribute("encoding") = "UTF-8";
}

std::string serialize(const pugi::xml_document& doc) {
  std::string out;
  StringWriter writer(out);
  doc.save(writer, "", pugi::format_raw, pugi::encoding_utf8);
  return out;
}

}  // namespace

Ec2Response::Ec2Response(std::string_view action, std::string_view requestId) {
  addDeclaration(doc_);
  std::string name(action);
  name += "Response";
  root_ = doc_.append_child(name.c_str());
  root_.append_attribute("xmlns") = std::string(kEc2Namespace).c_str();
  addText(root_, "requestId", requestId);
}

std::string Ec2Response::str() const {
  return serialize(doc_);
}

pugi::xml_node addElement(pugi::xml_node parent, const char* name) {
  return parent.append_child(name);
}

pugi::xml_node addText(pugi::xml_node parent, const char* name, std::string_view text) {
  pugi::xml_node node = parent.append_child(name);
  node.text().set(text.data(), text.size());
  return node;
}

pugi::xml_node addInt(pugi::xml_node parent, const char* name, std::int64_t value) {
  return addText(parent, name, std::to_string(value));
}

pugi::xml_node addBool(pugi::xml_node parent, const char* name, bool value) {
  return addText(parent, name, value ? "true" : "false");
}

pugi::xml_node addTime(pugi::xml_node parent, const char* name, core::TimePoint time) {
  return addText(parent, name, formatTimestamp(time));
}

pugi::xml_node addItem(pugi::xml_node list) {
  return list.append_child("item");
}

std::string formatTimestamp(core::TimePoint time) {
  using namespace std::chrono;
  auto millis = floor<milliseconds>(time);
  auto day = floor<days>(millis);
  year_month_day ymd{day};
  hh_mm_ss hms{millis - day};
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%04d-%02u-%02uT%02d:%02d:%02d.%03dZ",
                static_cast<int>(ymd.year()), static_cast<unsigned>(ymd.month()),
                static_cast<unsigned>(ymd.day()), static_cast<int>(hms.hours().count()),
                static_cast<int>(hms.minutes().count()), static_cast<int>(hms.seconds().count()),
                static_cast<int>(hms.subseconds().count()));
  return buffer;
}

std::string ec2ErrorDocument(const ApiError& error, std::string_view requestId) {
  pugi::xml_document doc;
  addDeclaration(doc);
  pugi::xml_node response = doc.append_child("Response");
  pugi::xml_node item = response.append_child("Errors").append_child("Error");
  addText(item, "Code", error.code);
  addText(item, "Message", error.message);
  addText(response, "RequestID", requestId);
  return serialize(doc);
}

std::optional<ApiError> parseEc2Error(std::string_view body, int httpStatus) {
  pugi::xml_document doc;
  if (!doc.load_buffer(body.data(), body.size())) {
    return std::nullopt;
  }
  pugi::xml_node error = doc.child("Response").child("Errors").child("Error");
  if (!error || !error.child("Code")) {
    return std::nullopt;
  }
  return ApiError{error.child_value("Code"), error.child_value("Message"), httpStatus};
}

}  // namespace nodewright::aws::xml
