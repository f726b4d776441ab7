// EC2NodeClass admission parity with Karpenter v1.14: every case of aws/karpenter-provider-aws
// pkg/apis/v1/ec2nodeclass_validation_cel_test.go (v1.14.1), one row per create, plus a few rows
// for CRD facts that suite leaves out. Each row is a JSON merge patch onto one valid spec (the
// same starting point as upstream's BeforeEach), sent as a client sends it; kube-apiserver with
// Karpenter's CRD answers 201 (accept) or 422 naming the field path (reject). A rejected object
// must not be stored; an accepted one must read back with every field it was given.

#include <array>
#include <cctype>
#include <cstdio>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver::testing {
namespace {

using api::Json;

constexpr const char* kCel = "pkg/apis/v1/ec2nodeclass_validation_cel_test.go:";
constexpr const char* kCrd = "pkg/apis/crds/karpenter.k8s.aws_ec2nodeclasses.yaml:";
constexpr const char* kCollection = "/apis/karpenter.k8s.aws/v1/ec2nodeclasses";

struct Case {
  std::string name;
  std::string upstream;  // file:line in aws/karpenter-provider-aws v1.14.1
  std::string patch;     // JSON merge patch onto kBaseSpec
  std::string reject;    // empty: accepted; else the path kube-apiserver names
  std::string update;    // non-empty: a merge patch sent by PUT after the create succeeds
};

// The spec of upstream's BeforeEach.
const char* const kBaseSpec = R"({
  "amiFamily": "AL2023",
  "amiSelectorTerms": [{"alias": "al2023@latest"}],
  "role": "role-1",
  "securityGroupSelectorTerms": [{"tags": {"*": "*"}}],
  "subnetSelectorTerms": [{"tags": {"*": "*"}}]
})";

Case accept(std::string name, int line, std::string patch, const char* file = kCel) {
  return {std::move(name), file + std::to_string(line), std::move(patch), "", ""};
}

Case reject(std::string name, int line, std::string patch, std::string path,
            const char* file = kCel) {
  return {std::move(name), file + std::to_string(line), std::move(patch), std::move(path), ""};
}

std::string lower(std::string s) {
  for (char& c : s) {
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  }
  return s;
}

// A spec with one EBS block device of the given JSON.
std::string device(const std::string& ebs, bool root = false) {
  return R"({"blockDeviceMappings": [{"deviceName": "map-device-1", "ebs": )" + ebs +
         R"(, "rootVolume": )" + (root ? "true" : "false") + "}]}";
}

std::string interfaces(const std::string& list) {
  return R"({"networkInterfaces": )" + list + "}";
}

std::string ni(int card, int dev, const char* type) {
  return R"({"networkCardIndex": )" + std::to_string(card) + R"(, "deviceIndex": )" +
         std::to_string(dev) + R"(, "interfaceType": ")" + type + R"("})";
}

std::string kubelet(const std::string& body) {
  return R"({"kubelet": )" + body + "}";
}

const char* const kAllSignals = R"({"memory.available": "5%", "nodefs.available": "10%",
  "nodefs.inodesFree": "15%", "imagefs.available": "5%", "imagefs.inodesFree": "5%",
  "pid.available": "5%"})";
const char* const kAllGracePeriods = R"({"memory.available": "1m0s",
  "nodefs.available": "1m30s", "nodefs.inodesFree": "5m0s", "imagefs.available": "1h0m0s",
  "imagefs.inodesFree": "24h0m0s", "pid.available": "1m0s"})";

void addIdentityAndFamilies(std::vector<Case>& c) {
  c.push_back(accept("role only", 65, "{}"));
  c.push_back(accept("instance profile only", 68,
                     R"({"role": null, "instanceProfile": "test-instance-profile"})"));
  c.push_back(reject("role and instance profile", 73,
                     R"({"instanceProfile": "test-instance-profile"})", "spec"));
  c.push_back(reject("neither role nor instance profile", 77, R"({"role": null})", "spec"));
  c.push_back(accept("empty user data", 82, "{}"));
  const std::vector<std::string> families = {
      "AL2", "AL2023", "Bottlerocket", "Windows2019", "Windows2022", "Windows2025", "Custom"};
  for (const std::string& f : families) {
    c.push_back(accept(
        "family " + f + " with an AMI id", 88,
        R"({"amiSelectorTerms": [{"id": "ami-0123456789abcdef"}], "amiFamily": ")" + f + R"("})"));
  }
  c.push_back(reject("family Ubuntu", 100,
                     R"({"amiSelectorTerms": [{"id": "ami-0123456789abcdef"}],
                         "amiFamily": "Ubuntu"})",
                     "spec.amiFamily"));
  for (const std::string& f : families) {
    if (f == "Custom") {
      continue;
    }
    std::string alias = lower(f) + "@latest";
    c.push_back(accept(
        "family " + f + " with its alias", 106,
        R"({"amiSelectorTerms": [{"alias": ")" + alias + R"("}], "amiFamily": ")" + f + R"("})"));
    c.push_back(
        accept("family Custom with alias " + alias, 125,
               R"({"amiSelectorTerms": [{"alias": ")" + alias + R"("}], "amiFamily": "Custom"})"));
  }
  for (const std::string& f : families) {
    for (const std::string& g : families) {
      if (f == "Custom" || g == "Custom" || f == g) {
        continue;
      }
      std::string alias = lower(g) + "@latest";
      c.push_back(reject(
          "family " + f + " with alias " + alias, 143,
          R"({"amiSelectorTerms": [{"alias": ")" + alias + R"("}], "amiFamily": ")" + f + R"("})",
          "spec"));
    }
  }
  c.push_back(reject("neither amiFamily nor alias", 169,
                     R"({"amiSelectorTerms": [{"id": "ami-01234567890abcdef"}],
                         "amiFamily": null})",
                     "spec"));
}

void addTags(std::vector<Case>& c) {
  c.push_back(accept("empty tags", 176, R"({"tags": {}})"));
  c.push_back(
      accept("unrestricted tags", 180,
             R"({"tags": {"karpenter.sh/custom-key": "value", "karpenter.sh/managed": "true",
                                  "kubernetes.io/role/key": "value"}})"));
  for (const char* key :
       {"karpenter.sh/nodepool", "kubernetes.io/cluster/test", "eks:eks-cluster-name",
        "karpenter.k8s.aws/ec2nodeclass", "karpenter.sh/nodeclaim"}) {
    c.push_back(reject(std::string("restricted tag ") + key, 188,
                       R"({"tags": {")" + std::string(key) + R"(": "value"}})", "spec.tags"));
  }
}

// The selector-term cases upstream repeats for subnets, security groups, capacity reservations
// and AMIs.
// lines: where upstream has the five cases, in the order added here.
void addTermBasics(std::vector<Case>& c, const std::string& field, std::array<int, 5> lines) {
  std::string list = "spec." + field;
  c.push_back(
      reject(field + ": term with no values", lines[0], R"({")" + field + R"(": [{}]})", list));
  // A Go client drops the empty map (omitempty): the term arrives empty.
  c.push_back(reject(field + ": term with an empty tag map", lines[1],
                     R"({")" + field + R"(": [{}]})", list));
  c.push_back(reject(field + ": tag with an empty value", lines[2],
                     R"({")" + field + R"(": [{"tags": {"test": ""}}]})", list + "[0].tags"));
  c.push_back(reject(field + ": tag with an empty key", lines[3],
                     R"({")" + field + R"(": [{"tags": {"": "testvalue"}}]})", list + "[0].tags"));
  c.push_back(reject(field + ": last term invalid", lines[4],
                     R"({")" + field + R"(": [{"tags": {"test": "testvalue"}},
                          {"tags": {"test2": "testvalue2"}}, {"tags": {"test3": "testvalue3"}},
                          {"tags": {"": "testvalue4"}}]})",
                     list + "[3].tags"));
}

void addSubnetsAndGroups(std::vector<Case>& c) {
  c.push_back(accept("subnet by tags", 212,
                     R"({"subnetSelectorTerms": [{"tags": {"test": "testvalue"}}]})"));
  c.push_back(
      accept("subnet by id", 222, R"({"subnetSelectorTerms": [{"id": "subnet-12345749"}]})"));
  c.push_back(reject("subnet terms absent", 230, R"({"subnetSelectorTerms": null})",
                     "spec.subnetSelectorTerms"));
  c.push_back(reject("subnet terms empty", 234, R"({"subnetSelectorTerms": []})",
                     "spec.subnetSelectorTerms"));
  addTermBasics(c, "subnetSelectorTerms", {238, 244, 252, 262, 272});
  c.push_back(reject("subnet id with tags", 297,
                     R"({"subnetSelectorTerms": [{"id": "subnet-12345749",
                                                  "tags": {"test": "testvalue"}}]})",
                     "spec.subnetSelectorTerms"));

  c.push_back(accept("security group by tags", 310,
                     R"({"securityGroupSelectorTerms": [{"tags": {"test": "testvalue"}}]})"));
  c.push_back(accept("security group by id", 320,
                     R"({"securityGroupSelectorTerms": [{"id": "sg-12345749"}]})"));
  c.push_back(accept("security group by name", 328,
                     R"({"securityGroupSelectorTerms": [{"name": "testname"}]})"));
  c.push_back(reject("security group terms absent", 336, R"({"securityGroupSelectorTerms": null})",
                     "spec.securityGroupSelectorTerms"));
  c.push_back(reject("security group terms empty", 340, R"({"securityGroupSelectorTerms": []})",
                     "spec.securityGroupSelectorTerms"));
  addTermBasics(c, "securityGroupSelectorTerms", {344, 350, 358, 368, 378});
  c.push_back(reject("security group id with tags", 403,
                     R"({"securityGroupSelectorTerms": [{"id": "sg-12345749",
                                                         "tags": {"test": "testvalue"}}]})",
                     "spec.securityGroupSelectorTerms"));
  c.push_back(reject("security group id with name", 414,
                     R"({"securityGroupSelectorTerms": [{"id": "sg-12345749",
                                                         "name": "my-security-group"}]})",
                     "spec.securityGroupSelectorTerms"));
  c.push_back(reject("security group name with tags", 423,
                     R"({"securityGroupSelectorTerms": [{"name": "my-security-group",
                                                         "tags": {"test": "testvalue"}}]})",
                     "spec.securityGroupSelectorTerms"));
}

void addCapacityReservations(std::vector<Case>& c) {
  const std::string f = "capacityReservationSelectorTerms";
  auto terms = [&](const std::string& list) { return R"({")" + f + R"(": )" + list + "}"; };
  const std::string list = "spec." + f;
  c.push_back(accept("reservation by tags", 436, terms(R"([{"tags": {"test": "testvalue"}}])")));
  c.push_back(accept("reservation by id", 444, terms(R"([{"id": "cr-12345749"}])")));
  c.push_back(accept("reservation owner with tags", 450,
                     terms(R"([{"ownerID": "012345678901", "tags": {"test": "testvalue"}}])")));
  c.push_back(
      reject("reservation malformed id", 459, terms(R"([{"id": "r-12345749"}])"), list + "[0].id"));
  c.push_back(accept("reservation terms absent", 465, terms("null")));
  addTermBasics(c, f, {469, 473, 479, 487, 495});
  c.push_back(reject("reservation id with tags", 520,
                     terms(R"([{"id": "cr-12345749", "tags": {"test": "testvalue"}}])"), list));
  c.push_back(reject("reservation id with owner", 529,
                     terms(R"([{"ownerID": "012345678901", "id": "cr-12345749"}])"), list));
  c.push_back(reject("reservation owner of 11 digits", 536,
                     terms(R"([{"ownerID": "01234567890", "tags": {"test": "testvalue"}}])"),
                     list + "[0].ownerID"));
  c.push_back(
      reject("reservation owner alone", 545, terms(R"([{"ownerID": "012345678901"}])"), list));
  c.push_back(
      accept("reservation match open", 551, terms(R"([{"instanceMatchCriteria": "open"}])")));
  c.push_back(accept("reservation match targeted", 557,
                     terms(R"([{"instanceMatchCriteria": "targeted"}])")));
  c.push_back(
      accept("reservation match with tags", 563,
             terms(R"([{"instanceMatchCriteria": "open", "tags": {"test": "testvalue"}}])")));
  c.push_back(accept("reservation match with owner and tags", 572,
                     terms(R"([{"instanceMatchCriteria": "targeted", "ownerID": "012345678901",
                                "tags": {"test": "testvalue"}}])")));
  c.push_back(reject("reservation match invalid", 582,
                     terms(R"([{"instanceMatchCriteria": "invalid"}])"),
                     list + "[0].instanceMatchCriteria"));
  c.push_back(reject("reservation id with match", 588,
                     terms(R"([{"id": "cr-12345749", "instanceMatchCriteria": "open"}])"), list));
}

void addAmis(std::vector<Case>& c) {
  const std::string list = "spec.amiSelectorTerms";
  auto terms = [](const std::string& t) { return R"({"amiSelectorTerms": )" + t + "}"; };
  c.push_back(accept("ami by alias", 597, terms(R"([{"alias": "al2023@latest"}])")));
  c.push_back(accept("ami by tags", 603, terms(R"([{"tags": {"test": "testvalue"}}])")));
  c.push_back(accept("ami by id", 613, terms(R"([{"id": "ami-12345749"}])")));
  c.push_back(accept("ami by name", 621, terms(R"([{"name": "testname"}])")));
  c.push_back(accept("ami by name and owner", 629,
                     terms(R"([{"name": "testname", "owner": "testowner"}])")));
  c.push_back(accept("ami by owner and tags", 638,
                     terms(R"([{"owner": "testowner", "tags": {"test": "testvalue"}}])")));
  addTermBasics(c, "amiSelectorTerms", {649, 655, 663, 673, 683});
  const std::vector<std::pair<std::string, std::string>> others = {
      {"tags", R"("tags": {"test": "testvalue"})"},
      {"name", R"("name": "my-custom-ami")"},
      {"owner", R"("owner": "123456789")"}};
  c.push_back(reject("ami id with alias", 716,
                     terms(R"([{"id": "ami-1234749", "alias": "al2023@latest"}])"), list));
  int line = 717;
  for (const auto& [name, field] : others) {
    c.push_back(reject("ami id with " + name, line,
                       terms(R"([{"id": "ami-1234749", )" + field + "}]"), list));
    line += name == "tags" ? 3 : 1;
  }
  c.push_back(reject("ami alias with id", 731,
                     terms(R"([{"alias": "al2023@latest", "id": "ami-1234749"}])"), list));
  line = 732;
  for (const auto& [name, field] : others) {
    c.push_back(reject("ami alias with " + name, line,
                       terms(R"([{"alias": "al2023@latest", )" + field + "}]"), list));
    line += name == "tags" ? 3 : 1;
  }
  c.push_back(reject("ami alias with another term", 738,
                     terms(R"([{"alias": "al2023@latest"}, {"id": "ami-1234749"}])"), list));
  const std::vector<std::tuple<int, std::string, std::string>> valid = {
      {752, "al2@latest", "AL2"},
      {753, "al2@v20240625", "AL2"},
      {754, "al2023@latest", "AL2023"},
      {755, "al2023@v20240625", "AL2023"},
      {756, "bottlerocket@latest", "Bottlerocket"},
      {757, "bottlerocket@1.10.0", "Bottlerocket"},
      {758, "windows2019@latest", "Windows2019"},
      {759, "windows2022@latest", "Windows2022"},
      {760, "windows2025@latest", "Windows2025"}};
  for (const auto& [at, alias, family] : valid) {
    c.push_back(accept("alias " + alias, at,
                       R"({"amiFamily": ")" + family + R"(", "amiSelectorTerms": [{"alias": ")" +
                           alias + R"("}]})"));
  }
  for (const auto& [at, alias] :
       std::vector<std::pair<int, std::string>>{{770, "@latest"},
                                                {771, "al2023"},
                                                {771, "al2023@"},
                                                {772, "al2023-latest"},
                                                {775, "ubuntu@latest"},
                                                {784, "windows2019@v1.0.0"},
                                                {785, "windows2022@v1.0.0"},
                                                {786, "windows2025@v1.0.0"}}) {
    c.push_back(reject("alias " + alias, at, terms(R"([{"alias": ")" + alias + R"("}])"),
                       list + "[0].alias"));
  }
}

void addKubelet(std::vector<Case>& c) {
  c.push_back(reject("kubeReserved pods", 790, kubelet(R"({"kubeReserved": {"pods": "2"}})"),
                     "spec.kubelet.kubeReserved"));
  c.push_back(reject("systemReserved pods", 798, kubelet(R"({"systemReserved": {"pods": "2"}})"),
                     "spec.kubelet.systemReserved"));
  c.push_back(accept("evictionHard every signal", 808,
                     kubelet(std::string(R"({"evictionHard": )") + kAllSignals + "}")));
  c.push_back(reject("evictionHard unknown signal", 821,
                     kubelet(R"({"evictionHard": {"memory": "5%"}})"),
                     "spec.kubelet.evictionHard"));
  for (const auto& [at, value] :
       std::vector<std::pair<int, std::string>>{{829, "5%3"}, {837, "110%"}, {845, "110GB"}}) {
    c.push_back(reject("evictionHard " + value, at,
                       kubelet(R"({"evictionHard": {"memory.available": ")" + value + R"("}})"),
                       "spec.kubelet.evictionHard"));
  }
  c.push_back(accept("evictionSoft every signal", 856,
                     kubelet(std::string(R"({"evictionSoft": )") + kAllSignals +
                             R"(, "evictionSoftGracePeriod": )" + kAllGracePeriods + "}")));
  c.push_back(reject("evictionSoft unknown signal", 877,
                     kubelet(R"({"evictionSoft": {"memory": "5%"},
                                 "evictionSoftGracePeriod": {"memory": "1m0s"}})"),
                     "spec.kubelet.evictionSoft"));
  for (const auto& [at, value] :
       std::vector<std::pair<int, std::string>>{{888, "5%3"}, {899, "110%"}, {910, "110GB"}}) {
    c.push_back(reject("evictionSoft " + value, at,
                       kubelet(R"({"evictionSoft": {"memory.available": ")" + value +
                               R"("}, "evictionSoftGracePeriod": {"memory.available": "1m0s"}})"),
                       "spec.kubelet.evictionSoft"));
  }
  c.push_back(reject("evictionSoft without grace period", 921,
                     kubelet(R"({"evictionSoft": {"memory.available": "200Mi"}})"),
                     "spec.kubelet"));
  c.push_back(accept("imageGCHighThresholdPercent alone", 931,
                     kubelet(R"({"imageGCHighThresholdPercent": 10})")));
  c.push_back(reject("imageGC high below low", 937, kubelet(R"({"imageGCHighThresholdPercent": 50,
                                 "imageGCLowThresholdPercent": 60})"),
                     "spec.kubelet"));
  c.push_back(reject("imageGC low above high", 944, kubelet(R"({"imageGCHighThresholdPercent": 50,
                                 "imageGCLowThresholdPercent": 60})"),
                     "spec.kubelet"));
  c.push_back(accept("evictionSoftGracePeriod every signal", 953,
                     kubelet(std::string(R"({"evictionSoft": )") + kAllSignals +
                             R"(, "evictionSoftGracePeriod": )" + kAllGracePeriods + "}")));
  c.push_back(reject("evictionSoftGracePeriod unknown signal", 974,
                     kubelet(R"({"evictionSoftGracePeriod": {"memory": "1m0s"}})"),
                     "spec.kubelet"));
  c.push_back(reject("evictionSoftGracePeriod without threshold", 982,
                     kubelet(R"({"evictionSoftGracePeriod": {"memory.available": "1m0s"}})"),
                     "spec.kubelet"));
}

void addMetadataAndDevices(std::vector<Case>& c) {
  c.push_back(accept("metadata options", 993,
                     R"({"metadataOptions": {"httpEndpoint": "disabled",
                         "httpProtocolIPv6": "enabled", "httpPutResponseHopLimit": 34,
                         "httpTokens": "optional"}})"));
  c.push_back(reject("httpEndpoint test", 1002, R"({"metadataOptions": {"httpEndpoint": "test"}})",
                     "spec.metadataOptions.httpEndpoint"));
  c.push_back(reject("httpProtocolIPv6 test", 1008,
                     R"({"metadataOptions": {"httpProtocolIPv6": "test"}})",
                     "spec.metadataOptions.httpProtocolIPv6"));
  c.push_back(reject("httpPutResponseHopLimit -5", 1014,
                     R"({"metadataOptions": {"httpPutResponseHopLimit": -5}})",
                     "spec.metadataOptions.httpPutResponseHopLimit"));
  c.push_back(reject("httpTokens test", 1020, R"({"metadataOptions": {"httpTokens": "test"}})",
                     "spec.metadataOptions.httpTokens"));
  const std::string volume = "spec.blockDeviceMappings[0].ebs.volumeSize";
  c.push_back(accept("one root volume of two", 1028,
                     R"({"amiFamily": null, "blockDeviceMappings": [
                           {"deviceName": "map-device-1", "ebs": {"volumeSize": "500G"},
                            "rootVolume": true},
                           {"deviceName": "map-device-2", "ebs": {"volumeSize": "50T"}}]})"));
  c.push_back(accept("volumeSize 58G", 1058, device(R"({"volumeSize": "58G"})")));
  c.push_back(accept("volumeSize 45T", 1079, device(R"({"volumeSize": "45T"})")));
  c.push_back(reject("two root volumes", 1100,
                     R"({"blockDeviceMappings": [
                           {"deviceName": "map-device-1", "ebs": {"volumeSize": "50G"},
                            "rootVolume": true},
                           {"deviceName": "map-device-2", "ebs": {"volumeSize": "50G"},
                            "rootVolume": true}]})",
                     "spec.blockDeviceMappings"));
  c.push_back(reject("volumeSize 1m", 1128, device(R"({"volumeSize": "1m"})"), volume));
  c.push_back(reject("volumeSize 100T", 1149, device(R"({"volumeSize": "100T"})"), volume));
  c.push_back(reject("volumeSize 0", 1170, device(R"({"volumeSize": "0"})"), volume));
  c.push_back(reject("volumeInitializationRate without snapshot", 1191,
                     device(R"({"volumeSize": "0", "volumeInitializationRate": 100})"),
                     "spec.blockDeviceMappings[0].ebs"));
  c.push_back(reject("volumeInitializationRate 99", 1213,
                     device(R"({"volumeSize": "0", "snapshotID": "snap-1",
                                "volumeInitializationRate": 99})"),
                     "spec.blockDeviceMappings[0].ebs.volumeInitializationRate"));
  c.push_back(reject("volumeInitializationRate 888", 1236,
                     device(R"({"volumeSize": "0", "snapshotID": "snap-1",
                                "volumeInitializationRate": 888})"),
                     "spec.blockDeviceMappings[0].ebs.volumeInitializationRate"));
}

void addInterfacesAndOptions(std::vector<Case>& c) {
  const std::string list = "spec.networkInterfaces";
  c.push_back(accept("four interfaces", 1261,
                     interfaces("[" + ni(0, 0, "interface") + "," + ni(0, 1, "efa-only") + "," +
                                ni(1, 0, "efa-only") + "," + ni(1, 1, "interface") + "]")));
  c.push_back(accept("no interfaces", 1286, interfaces("[]")));
  c.push_back(reject("interfaceType efa", 1290, interfaces("[" + ni(0, 0, "efa") + "]"),
                     list + "[0].interfaceType"));
  c.push_back(reject("negative networkCardIndex", 1300,
                     interfaces("[" + ni(0, 0, "interface") + "," + ni(-1, 0, "interface") + "]"),
                     list + "[1].networkCardIndex"));
  c.push_back(reject("negative deviceIndex", 1315,
                     interfaces("[" + ni(-1, 0, "interface") + "," + ni(0, -1, "interface") + "]"),
                     list + "[1].deviceIndex"));
  c.push_back(reject("duplicate card and device", 1330,
                     interfaces("[" + ni(0, 0, "interface") + "," + ni(0, 1, "efa-only") + "," +
                                ni(1, 0, "interface") + "," + ni(1, 0, "efa-only") + "]"),
                     list));
  c.push_back(
      reject("no primary interface", 1355, interfaces("[" + ni(0, 1, "interface") + "]"), list));
  c.push_back(reject("efa-only primary", 1365, interfaces("[" + ni(0, 0, "efa-only") + "]"), list));
  c.push_back(reject("two efa-only on one card", 1375,
                     interfaces("[" + ni(0, 0, "interface") + "," + ni(1, 0, "efa-only") + "," +
                                ni(1, 1, "efa-only") + "]"),
                     list));
  const std::string ct = "spec.connectionTracking";
  c.push_back(reject("connectionTracking empty", 1397, R"({"connectionTracking": {}})", ct));
  c.push_back(accept("tcpEstablishedTimeout 60", 1401,
                     R"({"connectionTracking": {"tcpEstablishedTimeout": 60}})"));
  c.push_back(
      accept("udpStreamTimeout 120", 1407, R"({"connectionTracking": {"udpStreamTimeout": 120}})"));
  c.push_back(accept("udpTimeout 45", 1413, R"({"connectionTracking": {"udpTimeout": 45}})"));
  c.push_back(accept("every connectionTracking timeout", 1419,
                     R"({"connectionTracking": {"tcpEstablishedTimeout": 432000,
                         "udpStreamTimeout": 180, "udpTimeout": 60}})"));
  for (const auto& [at, field, value] :
       std::vector<std::tuple<int, std::string, int>>{{1427, "tcpEstablishedTimeout", 59},
                                                      {1433, "tcpEstablishedTimeout", 432001},
                                                      {1439, "udpStreamTimeout", 59},
                                                      {1445, "udpStreamTimeout", 181},
                                                      {1451, "udpTimeout", 29},
                                                      {1457, "udpTimeout", 61}}) {
    c.push_back(
        reject(field + " " + std::to_string(value), at,
               R"({"connectionTracking": {")" + field + R"(": )" + std::to_string(value) + "}}",
               ct + "." + field));
  }
  c.push_back(reject("role empty", 1465, R"({"role": null})", "spec"));
  Case roleUpdate = accept("role updated", 1469, R"({"role": "test-role"})");
  roleUpdate.update = R"({"role": "test-role2"})";
  c.push_back(roleUpdate);
  Case toManaged = accept("instance profile to role", 1476,
                          R"({"role": null, "instanceProfile": "test-instance-profile"})");
  toManaged.update = R"({"role": "test-role", "instanceProfile": null})";
  c.push_back(toManaged);
  Case toUnmanaged = accept("role to instance profile", 1485, R"({"role": "test-role"})");
  toUnmanaged.update = R"({"role": null, "instanceProfile": "test-instance-profile"})";
  c.push_back(toUnmanaged);
  c.push_back(accept("nestedVirtualization enabled", 1497,
                     R"({"cpuOptions": {"nestedVirtualization": "enabled"}})"));
  c.push_back(accept("nestedVirtualization disabled", 1503,
                     R"({"cpuOptions": {"nestedVirtualization": "disabled"}})"));
  c.push_back(reject("nestedVirtualization invalid", 1509,
                     R"({"cpuOptions": {"nestedVirtualization": "invalid"}})",
                     "spec.cpuOptions.nestedVirtualization"));
  c.push_back(accept("empty cpuOptions", 1515, R"({"cpuOptions": {}})"));
}

// CRD facts the CEL suite does not exercise.
void addSchemaFacts(std::vector<Case>& c) {
  c.push_back(accept("placement group by name", 606,
                     R"({"placementGroupSelector": {"name": "my-group"}})", kCrd));
  c.push_back(accept("placement group by id", 606,
                     R"({"placementGroupSelector": {"id": "pg-0123abc"}})", kCrd));
  c.push_back(reject("placement group by name and id", 606,
                     R"({"placementGroupSelector": {"name": "g", "id": "pg-0123abc"}})",
                     "spec.placementGroupSelector", kCrd));
  c.push_back(reject("placement group id malformed", 606,
                     R"({"placementGroupSelector": {"id": "group-1"}})",
                     "spec.placementGroupSelector.id", kCrd));
  c.push_back(accept("ipPrefixCount", 373, R"({"ipPrefixCount": 2})", kCrd));
  c.push_back(reject("ipPrefixCount negative", 373, R"({"ipPrefixCount": -1})",
                     "spec.ipPrefixCount", kCrd));
  c.push_back(reject("interface without interfaceType", 595,
                     interfaces(R"([{"networkCardIndex": 0, "deviceIndex": 0}])"),
                     "spec.networkInterfaces[0].interfaceType", kCrd));
  c.push_back(accept("efa-only on card 1 device 0", 595,
                     interfaces("[" + ni(0, 0, "interface") + "," + ni(1, 0, "efa-only") + "]"),
                     kCrd));
  c.push_back(accept(
      "public address with interfaces", 595,
      R"({"associatePublicIPAddress": true, "networkInterfaces": [)" + ni(0, 0, "interface") + "]}",
      kCrd));
  c.push_back(accept("volumeSize 59000Gi", 210, device(R"({"volumeSize": "59000Gi"})"), kCrd));
  c.push_back(reject("volumeSize 59Ti", 210, device(R"({"volumeSize": "59Ti"})"),
                     "spec.blockDeviceMappings[0].ebs.volumeSize", kCrd));
  c.push_back(accept("negative iops", 164, device(R"({"volumeSize": "20Gi", "iops": -1})"), kCrd));
  c.push_back(accept("subnet id unanchored", 679,
                     R"({"subnetSelectorTerms": [{"id": "subnet-1X"}]})", kCrd));
  c.push_back(accept("tag with an empty value", 702, R"({"tags": {"team": ""}})", kCrd));
  c.push_back(
      accept("managed-by tag", 702, R"({"tags": {"karpenter.sh/managed-by": "me"}})", kCrd));
  c.push_back(accept("ami id with ssmParameter", 136,
                     R"({"amiFamily": "AL2023", "amiSelectorTerms": [{"id": "ami-0123",
                         "ssmParameter": "/my/ami"}]})",
                     kCrd));
  c.push_back(accept("subnet id with tags beside a good term", 701,
                     R"({"subnetSelectorTerms": [{"id": "subnet-1", "tags": {"a": "b"}},
                                                 {"tags": {"a": "b"}}]})",
                     kCrd));
}

std::vector<Case> allCases() {
  std::vector<Case> c;
  addIdentityAndFamilies(c);
  addTags(c);
  addSubnetsAndGroups(c);
  addCapacityReservations(c);
  addAmis(c);
  addKubelet(c);
  addMetadataAndDevices(c);
  addInterfacesAndOptions(c);
  addSchemaFacts(c);
  return c;
}

// Whether kube-apiserver's 422 body names `path`: a cause on that field or inside it.
bool namesPath(const Json& status, const std::string& path) {
  for (const Json& cause : status.value("details", Json::object()).value("causes", Json::array())) {
    std::string field = cause.value("field", "");
    if (field == path || (field.rfind(path, 0) == 0 && field.size() > path.size() &&
                          (field[path.size()] == '.' || field[path.size()] == '['))) {
      return true;
    }
  }
  return false;
}

Json manifest(const std::string& name, const std::string& patch) {
  Json spec = Json::parse(kBaseSpec);
  spec.merge_patch(Json::parse(patch));
  return {{"apiVersion", "karpenter.k8s.aws/v1"},
          {"kind", "EC2NodeClass"},
          {"metadata", {{"name", name}}},
          {"spec", spec}};
}

// Every path of `given` that `stored` lacks or changes.
void missingFrom(const Json& given, const Json& stored, const std::string& path,
                 std::vector<std::string>& out) {
  if (given.is_object() && stored.is_object()) {
    for (const auto& [key, value] : given.items()) {
      if (!stored.contains(key)) {
        if (!((value.is_object() || value.is_array()) && value.empty())) {
          out.push_back(path + "." + key);
        }
        continue;
      }
      missingFrom(value, stored[key], path + "." + key, out);
    }
  } else if (given.is_array() && stored.is_array() && given.size() == stored.size()) {
    for (size_t i = 0; i < given.size(); ++i) {
      missingFrom(given[i], stored[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else if (given != stored) {
    out.push_back(path + ": sent " + given.dump() + ", read " + stored.dump());
  }
}

class Ec2NodeClassParity : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ApiServerOptions options;
    options.fsync = false;  // durability is not under test
    server_ = new TestApiServer(options);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  // What went wrong with one case, or "" when the server answered as kube-apiserver would.
  std::string run(http::Client& client, const Case& c, const std::string& name) {
    Json object = manifest(name, c.patch);
    auto created = client.send("POST", std::string(kCollection) + "?fieldValidation=Strict",
                               api::dumpJson(object));
    if (!created) {
      return "POST failed: " + created.error().message();
    }
    bool lastStep = c.update.empty();
    if (!c.reject.empty() && lastStep) {
      if (created->status != 422) {
        return "want 422 at " + c.reject + ", got " + std::to_string(created->status) + " " +
               created->body;
      }
      if (!namesPath(Json::parse(created->body), c.reject)) {
        return "422 does not name " + c.reject + ": " + created->body;
      }
      auto got = client.send("GET", std::string(kCollection) + "/" + name);
      if (!got || got->status != 404) {
        return "a rejected object was stored";
      }
      return "";
    }
    if (created->status != 201) {
      return "want 201, got " + std::to_string(created->status) + " " + created->body;
    }
    auto got = client.send("GET", std::string(kCollection) + "/" + name);
    if (!got || got->status != 200) {
      return "an accepted object cannot be read back";
    }
    Json stored = Json::parse(got->body);
    std::vector<std::string> lost;
    missingFrom(object["spec"], stored["spec"], "spec", lost);
    if (!lost.empty()) {
      return "read back without " + lost.front();
    }
    if (lastStep) {
      return "";
    }
    stored["spec"].merge_patch(Json::parse(c.update));
    auto updated =
        client.send("PUT", std::string(kCollection) + "/" + name + "?fieldValidation=Strict",
                    api::dumpJson(stored));
    if (!updated) {
      return "PUT failed: " + updated.error().message();
    }
    int want = c.reject.empty() ? 200 : 422;
    if (updated->status != want) {
      return "update: want " + std::to_string(want) + ", got " + std::to_string(updated->status) +
             " " + updated->body;
    }
    if (!c.reject.empty() && !namesPath(Json::parse(updated->body), c.reject)) {
      return "update 422 does not name " + c.reject + ": " + updated->body;
    }
    return "";
  }

  static TestApiServer* server_;
};

TestApiServer* Ec2NodeClassParity::server_ = nullptr;

TEST_F(Ec2NodeClassParity, EveryUpstreamCaseHasUpstreamsOutcome) {
  auto client = server_->client();
  std::vector<Case> cases = allCases();
  int mismatches = 0;
  for (size_t i = 0; i < cases.size(); ++i) {
    const Case& c = cases[i];
    std::string problem = run(*client, c, "parity-" + std::to_string(i));
    if (!problem.empty()) {
      ++mismatches;
      ADD_FAILURE() << c.name << " (" << c.upstream << "): " << problem;
    }
  }
  std::printf("parity cases=%zu mismatches=%d\n", cases.size(), mismatches);
  EXPECT_GE(cases.size(), 150u);
  EXPECT_EQ(mismatches, 0);
}

}  // namespace
}  // namespace nodewright::apiserver::testing
