#include "aws/xml.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "aws/sigv4.h"
#include "support/aws/python.h"

namespace nodewright::aws::xml {
namespace {

core::TimePoint at(std::string_view amzDate, std::chrono::milliseconds extra = {}) {
  return *sigv4::parseAmzDate(amzDate) + extra;
}

std::string describeVolumes() {
  Ec2Response response("DescribeVolumes", "59dbff89-35bd-4eac-99ed-be587EXAMPLE");
  pugi::xml_node volumes = addElement(response.root(), "volumeSet");
  pugi::xml_node volume = addItem(volumes);
  addText(volume, "volumeId", "vol-1234567890abcdef0");
  addInt(volume, "size", 80);
  addText(volume, "status", "in-use");
  addTime(volume, "createTime", at("20240501T120000Z", std::chrono::milliseconds(123)));
  addBool(volume, "encrypted", true);
  addItem(volumes);  // a second, empty member
  return response.str();
}

TEST(Ec2ResponseTest, WritesTheEc2Envelope) {
  std::string body = describeVolumes();
  EXPECT_EQ(body.rfind("<?xml version=\"1.0\" encoding=\"UTF-8\"?>", 0), 0u) << body;
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(body.c_str()));
  pugi::xml_node root = doc.document_element();
  EXPECT_STREQ(root.name(), "DescribeVolumesResponse");
  EXPECT_EQ(root.attribute("xmlns").value(), kEc2Namespace);
  EXPECT_STREQ(root.first_child().name(), "requestId");
  EXPECT_STREQ(root.child_value("requestId"), "59dbff89-35bd-4eac-99ed-be587EXAMPLE");
  pugi::xml_node item = root.child("volumeSet").child("item");
  EXPECT_STREQ(item.child_value("size"), "80");
  EXPECT_STREQ(item.child_value("createTime"), "2024-05-01T12:00:00.123Z");
  EXPECT_STREQ(item.child_value("encrypted"), "true");
  EXPECT_TRUE(item.next_sibling("item"));
}

TEST(Ec2ResponseTest, EscapesText) {
  Ec2Response response("CreateTags", "r");
  addText(response.root(), "value", "<a & \"b\">");
  pugi::xml_document doc;
  ASSERT_TRUE(doc.load_string(response.str().c_str()));
  EXPECT_STREQ(doc.document_element().child_value("value"), "<a & \"b\">");
}

TEST(FormatTimestampTest, UsesMillisecondsInUtc) {
  EXPECT_EQ(formatTimestamp(at("20161115T000000Z")), "2016-11-15T00:00:00.000Z");
  EXPECT_EQ(formatTimestamp(at("19991231T235959Z", std::chrono::milliseconds(999))),
            "1999-12-31T23:59:59.999Z");
}

TEST(Ec2ErrorDocumentTest, HasExactlyTheEc2Shape) {
  std::string body = ec2ErrorDocument(
      {"InvalidInstanceID.NotFound", "The instance ID 'i-1' does not exist", 400}, "req-1");
  EXPECT_EQ(body,
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?><Response><Errors><Error>"
            "<Code>InvalidInstanceID.NotFound</Code>"
            "<Message>The instance ID 'i-1' does not exist</Message>"
            "</Error></Errors><RequestID>req-1</RequestID></Response>");
}

TEST(Ec2ErrorDocumentTest, ParsesBack) {
  ApiError error{"AuthFailure", "AWS was not able to validate <the> provided & credentials", 401};
  auto parsed = parseEc2Error(ec2ErrorDocument(error, "r"), 401);
  ASSERT_TRUE(parsed);
  EXPECT_EQ(parsed->code, error.code);
  EXPECT_EQ(parsed->message, error.message);
  EXPECT_EQ(parsed->httpStatus, 401);
  EXPECT_FALSE(parseEc2Error("<ErrorResponse/>", 400));
  EXPECT_FALSE(parseEc2Error("not xml", 400));
}

// botocore's EC2 response parser, with the real EC2 service model, reads our documents.
constexpr char kParseScript[] = R"PY(
import sys
import botocore.parsers
import botocore.session

path, status, operation = sys.argv[1], int(sys.argv[2]), sys.argv[3]
model = botocore.session.get_session().get_service_model('ec2')
shape = model.operation_model(operation).output_shape
with open(path, 'rb') as f:
    body = f.read()
parsed = botocore.parsers.EC2QueryParser().parse(
    {'body': body, 'headers': {}, 'status_code': status}, shape)
print(parsed['ResponseMetadata']['RequestId'])
if status >= 300:
    print(parsed['Error']['Code'])
    print(parsed['Error']['Message'])
else:
    for v in parsed['Volumes']:
        print(v.get('VolumeId'), v.get('Size'), v.get('CreateTime', 'none'), v.get('Encrypted'))
)PY";

std::string parseWithBotocore(const std::string& body, int status, const std::string& operation) {
  std::string file = testing::writeTempFile(body, ".xml");
  auto out = testing::runPython(kParseScript, {file, std::to_string(status), operation});
  std::filesystem::remove(file);
  EXPECT_TRUE(out) << out.error().message();
  return out ? *out : "";
}

TEST(BotocoreParsesTest, ASuccessfulResponse) {
  EXPECT_EQ(parseWithBotocore(describeVolumes(), 200, "DescribeVolumes"),
            "59dbff89-35bd-4eac-99ed-be587EXAMPLE\n"
            "vol-1234567890abcdef0 80 2024-05-01 12:00:00.123000+00:00 True\n"
            "None None none None\n");
}

TEST(BotocoreParsesTest, AnErrorResponse) {
  std::string body =
      ec2ErrorDocument({"InvalidParameterValue", "Invalid value 'x' for A.1", 400}, "req-42");
  EXPECT_EQ(parseWithBotocore(body, 400, "DescribeVolumes"),
            "req-42\nInvalidParameterValue\nInvalid value 'x' for A.1\n");
}

}  // namespace
}  // namespace nodewright::aws::xml
