// The read-only actions' responses as botocore, the reference AWS client, parses them: each
// body goes through botocore's own parser with the operation's output shape. botocore silently
// drops elements its shape does not name, so the script also walks every XML element against
// the shape and reports the ones it would drop; none may be.
#include <gtest/gtest.h>

#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include "api/reflect/json.h"
#include "aws/xml.h"
#include "emulators/ec2/describe_fixture.h"
#include "emulators/ec2/ssm.h"
#include "support/emulators/process.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::Json;
using testing::DescribeWorld;

// argv: LABEL:SERVICE:OPERATION:STATUS:FILE ... ; prints {LABEL: {"parsed": ..., "dropped":
// [...]}}.
constexpr const char* kScript = R"PY(
import json, sys
import xml.etree.ElementTree as ET
import botocore.session
from botocore.parsers import create_parser

session = botocore.session.get_session()

def dropped(elem, shape, path):
    out = []
    tag = lambda e: e.tag.split('}')[-1]
    if shape.type_name == 'structure':
        names = {m.serialization.get('name', n): m for n, m in shape.members.items()}
        for child in elem:
            if tag(child) == 'requestId' and path == '':
                continue
            member = names.get(tag(child))
            if member is None:
                out.append(path + '/' + tag(child))
            else:
                out += dropped(child, member, path + '/' + tag(child))
    elif shape.type_name == 'list':
        want = shape.member.serialization.get('name', 'member')
        for child in elem:
            if tag(child) != want:
                out.append(path + '/' + tag(child))
            else:
                out += dropped(child, shape.member, path + '/' + tag(child))
    return out

result = {}
for arg in sys.argv[1:]:
    label, service, op, status, path = arg.split(':', 4)
    model = session.get_service_model(service)
    operation = model.operation_model(op)
    body = open(path, 'rb').read()
    parser = create_parser(model.metadata['protocol'])
    parsed = parser.parse({'body': body, 'headers': {}, 'status_code': int(status)},
                          operation.output_shape)
    parsed.pop('ResponseMetadata', None)
    entry = {'parsed': parsed}
    if model.metadata['protocol'] == 'ec2' and int(status) == 200:
        entry['dropped'] = dropped(ET.fromstring(body), operation.output_shape, '')
    result[label] = entry
print(json.dumps(result, default=str))
)PY";

class DescribeBotocoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto probe = testing_process({"python3", "-c", "import botocore"});
    if (!probe.ok()) {
      FAIL() << "botocore is not importable: " << probe.describe();
    }
  }
  void TearDown() override {
    for (const std::string& file : files_) {
      std::filesystem::remove(file);
    }
  }

  static emulators::testing::ProcessResult testing_process(const std::vector<std::string>& argv) {
    return emulators::testing::runProcess(argv, emulators::testing::cleanEnvironment({}),
                                          std::chrono::seconds(120));
  }

  // Queues `body` as the response of `service`'s `operation`; the result is under `label`
  // (the operation when empty).
  void add(const std::string& service, const std::string& operation, const std::string& body,
           int status = 200, std::string label = "") {
    if (label.empty()) {
      label = operation;
    }
    const std::string file = (std::filesystem::temp_directory_path() /
                              ("nw-describe-" + std::to_string(::getpid()) + "-" + label + ".body"))
                                 .string();
    std::ofstream(file, std::ios::binary) << body;
    files_.push_back(file);
    args_.push_back(label + ":" + service + ":" + operation + ":" + std::to_string(status) + ":" +
                    file);
  }

  void addEc2(DescribeWorld& w, const std::string& action, const std::string& query,
              const std::string& label = "") {
    auto body = w.call(action, query);
    ASSERT_TRUE(body) << action << ": " << body.error().code << " " << body.error().message;
    add("ec2", action, *body, 200, label);
  }
  void addEc2(const std::string& action, const std::string& query) { addEc2(w_, action, query); }

  // Runs the parser over everything queued.
  Json parseAll() {
    std::vector<std::string> argv{"python3", "-c", kScript};
    argv.insert(argv.end(), args_.begin(), args_.end());
    auto result = testing_process(argv);
    EXPECT_TRUE(result.ok()) << result.describe();
    Json out = Json::parse(result.out, nullptr, false);
    EXPECT_FALSE(out.is_discarded()) << result.out;
    for (auto& [op, entry] : out.items()) {
      EXPECT_EQ(entry.value("dropped", Json::array()), Json::array())
          << op << ": elements botocore's shape does not name";
    }
    return out;
  }

  DescribeWorld w_;
  std::vector<std::string> files_;
  std::vector<std::string> args_;
};

TEST_F(DescribeBotocoreTest, EveryResponseParsesWithNothingDropped) {
  addEc2("DescribeInstanceTypes",
         "InstanceType.1=p5.48xlarge&InstanceType.2=m5.large&InstanceType.3=inf2.xlarge"
         "&InstanceType.4=trn1.32xlarge&InstanceType.5=m7g.medium");
  addEc2("DescribeInstanceTypeOfferings",
         "LocationType=availability-zone&MaxResults=5&Filter.1.Name=instance-type"
         "&Filter.1.Value.1=m5.*");
  addEc2("DescribeAvailabilityZones", "");
  addEc2("DescribeVpcs", "");
  addEc2("DescribeSubnets", "");
  addEc2("DescribeSecurityGroups", "");
  addEc2("DescribeImages", "Owner.1=amazon&Owner.2=self&MaxResults=100");
  addEc2("DescribeSpotPriceHistory", "InstanceType.1=m5.large&MaxResults=5");
  Json out = parseAll();

  const Json& types = out["DescribeInstanceTypes"]["parsed"]["InstanceTypes"];
  ASSERT_EQ(types.size(), 5u);
  std::map<std::string, Json> byName;
  for (const Json& t : types) {
    byName[t["InstanceType"]] = t;
  }
  const Json& p5 = byName["p5.48xlarge"];
  EXPECT_EQ(p5["VCpuInfo"]["DefaultVCpus"], 192);
  EXPECT_EQ(p5["MemoryInfo"]["SizeInMiB"], 2097152);
  EXPECT_EQ(p5["ProcessorInfo"]["SupportedArchitectures"], Json::array({"x86_64"}));
  EXPECT_EQ(p5["NetworkInfo"]["MaximumNetworkCards"], 32);
  EXPECT_EQ(p5["NetworkInfo"]["NetworkCards"].size(), 32u);
  EXPECT_EQ(p5["NetworkInfo"]["NetworkCards"][1]["NetworkCardIndex"], 1);
  EXPECT_EQ(p5["NetworkInfo"]["EfaSupported"], true);
  EXPECT_EQ(p5["NetworkInfo"]["EfaInfo"]["MaximumEfaInterfaces"], 32);
  EXPECT_EQ(p5["GpuInfo"]["Gpus"][0]["Manufacturer"], "NVIDIA");
  EXPECT_EQ(p5["GpuInfo"]["Gpus"][0]["Count"], 8);
  EXPECT_TRUE(p5["GpuInfo"]["Gpus"][0]["MemoryInfo"]["SizeInMiB"].is_number());
  EXPECT_EQ(byName["m5.large"]["NetworkInfo"]["Ipv4AddressesPerInterface"], 10);
  EXPECT_EQ(byName["m5.large"]["CurrentGeneration"], true);
  EXPECT_TRUE(byName["m5.large"]["SupportedUsageClasses"].size() >= 1);
  EXPECT_EQ(byName["m7g.medium"]["ProcessorInfo"]["SupportedArchitectures"],
            Json::array({"arm64"}));
  EXPECT_EQ(byName["inf2.xlarge"]["InferenceAcceleratorInfo"]["Accelerators"][0]["Name"],
            "Inferentia2");
  EXPECT_EQ(byName["inf2.xlarge"]["NeuronInfo"]["NeuronDevices"][0]["Count"], 1);
  EXPECT_EQ(byName["trn1.32xlarge"]["NeuronInfo"]["NeuronDevices"][0]["Name"], "Trainium");

  const Json& offerings = out["DescribeInstanceTypeOfferings"]["parsed"];
  EXPECT_EQ(offerings["InstanceTypeOfferings"].size(), 5u);
  EXPECT_EQ(offerings["InstanceTypeOfferings"][0]["LocationType"], "availability-zone");
  EXPECT_TRUE(offerings["NextToken"].is_string());

  const Json& zones = out["DescribeAvailabilityZones"]["parsed"]["AvailabilityZones"];
  ASSERT_EQ(zones.size(), 3u);
  EXPECT_EQ(zones[0]["State"], "available");
  EXPECT_EQ(zones[0]["ZoneId"], "use1-az1");

  const Json& vpcs = out["DescribeVpcs"]["parsed"]["Vpcs"];
  ASSERT_EQ(vpcs.size(), 2u);
  EXPECT_EQ(vpcs[0]["CidrBlockAssociationSet"][0]["CidrBlockState"]["State"], "associated");
  EXPECT_EQ(vpcs[0]["IsDefault"], false);

  const Json& subnets = out["DescribeSubnets"]["parsed"]["Subnets"];
  ASSERT_EQ(subnets.size(), 4u);
  EXPECT_EQ(subnets[0]["AvailableIpAddressCount"], 8187);
  EXPECT_EQ(subnets[0]["AvailabilityZoneId"], "use1-az1");
  EXPECT_EQ(subnets[0]["MapPublicIpOnLaunch"], false);
  EXPECT_FALSE(subnets[0]["Tags"].empty());
  EXPECT_EQ(subnets[0]["Ipv6CidrBlockAssociationSet"][0]["Ipv6CidrBlock"],
            "2600:1f18:4e2c:4a00::/64");

  const Json& groups = out["DescribeSecurityGroups"]["parsed"]["SecurityGroups"];
  ASSERT_EQ(groups.size(), 3u);
  for (const Json& g : groups) {
    EXPECT_TRUE(g["Description"].is_string()) << g;
    EXPECT_EQ(g["IpPermissions"], Json::array());
    EXPECT_EQ(g["IpPermissionsEgress"][0]["IpRanges"][0]["CidrIp"], "0.0.0.0/0");
  }

  const Json& images = out["DescribeImages"]["parsed"]["Images"];
  ASSERT_FALSE(images.empty());
  for (const Json& image : images) {
    EXPECT_EQ(image["State"], "available") << image;
    EXPECT_TRUE(image["OwnerId"].is_string()) << image;
    EXPECT_TRUE(image["Architecture"] == "x86_64" || image["Architecture"] == "arm64") << image;
    EXPECT_EQ(image["BlockDeviceMappings"][0]["Ebs"]["VolumeType"], "gp3");
  }

  const Json& prices = out["DescribeSpotPriceHistory"]["parsed"];
  ASSERT_EQ(prices["SpotPriceHistory"].size(), 5u);
  EXPECT_TRUE(prices["SpotPriceHistory"][0]["SpotPrice"].is_string());
  EXPECT_TRUE(prices["SpotPriceHistory"][0]["Timestamp"].is_string());
  EXPECT_TRUE(prices["NextToken"].is_string());
}

TEST_F(DescribeBotocoreTest, ErrorsAndSsmParse) {
  auto error = w_.call("DescribeImages", "ImageId.1=ami-0123456789abcdef0");
  ASSERT_FALSE(error);
  add("ec2", "DescribeImages", aws::xml::ec2ErrorDocument(error.error(), "req-1"),
      error.error().httpStatus);
  const std::string name =
      "/aws/service/eks/optimized-ami/1.31/amazon-linux-2023/x86_64/standard/recommended/image_id";
  SsmReply found = serveSsm("GetParameter", Json{{"Name", name}}.dump(), w_.world());
  add("ssm", "GetParameter", found.body, found.status);
  SsmReply both = serveSsm("GetParameters", Json{{"Names", {name, "/missing"}}}.dump(), w_.world());
  add("ssm", "GetParameters", both.body, both.status);
  Json out = parseAll();

  const Json& ec2Error = out["DescribeImages"]["parsed"]["Error"];
  EXPECT_EQ(ec2Error["Code"], "InvalidAMIID.NotFound");
  EXPECT_EQ(ec2Error["Message"], "The image id '[ami-0123456789abcdef0]' does not exist");

  const Json& parameter = out["GetParameter"]["parsed"]["Parameter"];
  EXPECT_EQ(parameter["Name"], name);
  EXPECT_EQ(parameter["Value"], w_.world().ssmParameters.at(name));
  EXPECT_EQ(parameter["Version"], 1);
  EXPECT_TRUE(parameter["LastModifiedDate"].get<std::string>().starts_with("2024-11-15"));
  EXPECT_EQ(out["GetParameters"]["parsed"]["InvalidParameters"], Json::array({"/missing"}));
  EXPECT_EQ(out["GetParameters"]["parsed"]["Parameters"].size(), 1u);
}

TEST_F(DescribeBotocoreTest, SsmNotFoundParsesAsParameterNotFound) {
  SsmReply missing = serveSsm("GetParameter", R"({"Name":"/missing"})", w_.world());
  add("ssm", "GetParameter", missing.body, missing.status);
  Json out = parseAll();
  EXPECT_EQ(out["GetParameter"]["parsed"]["Error"]["Code"], "ParameterNotFound");
}

// Every type of the full reference catalog renders into what botocore reads, including the
// types whose facts the data lacks.
TEST_F(DescribeBotocoreTest, EveryTypeOfTheFullCatalogParses) {
  auto catalog = loadCatalog(std::string(NW_SHARED_DIR) + "/data/aws-instance-types.json");
  if (!catalog) {
    FAIL() << "no reference catalog: " << catalog.error().message();
  }
  const size_t size = catalog->size();
  DescribeWorld w(defaultWorld(), std::move(*catalog));
  std::string token;
  int pages = 0;
  do {
    std::string query = "MaxResults=100";
    if (!token.empty()) {
      query += "&NextToken=" + token;
    }
    auto body = w.call("DescribeInstanceTypes", query);
    ASSERT_TRUE(body) << body.error().message;
    add("ec2", "DescribeInstanceTypes", *body, 200, "page" + std::to_string(pages++));
    token = testing::Xml(*body).nextToken();
  } while (!token.empty() && pages < 100);
  Json out = parseAll();
  size_t types = 0;
  for (auto& [label, entry] : out.items()) {
    for (const Json& t : entry["parsed"]["InstanceTypes"]) {
      EXPECT_TRUE(t["InstanceType"].is_string()) << label;
      EXPECT_TRUE(t["NetworkInfo"]["MaximumNetworkInterfaces"].is_number()) << t["InstanceType"];
      ++types;
    }
  }
  EXPECT_EQ(types, size);
}

}  // namespace
}  // namespace nodewright::emulators::ec2
