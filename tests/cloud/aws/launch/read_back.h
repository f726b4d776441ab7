#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include <pugixml.hpp>

#include "aws/ec2_types.h"
#include "cloud/aws/sdk.h"
#include "support/emulators/query_client.h"

// Reads a launch template back from the peer with DescribeLaunchTemplateVersions (the raw test
// client, not the code under test) and prints its parts canonically, so a test compares what
// the peer recorded with what was meant, field by field, with readable failures.
namespace nodewright::cloud::aws::testing {

inline std::optional<bool> optBool(pugi::xml_node n, const char* name) {
  pugi::xml_node c = n.child(name);
  if (!c) {
    return std::nullopt;
  }
  return std::string(c.child_value()) == "true";
}

inline std::optional<int64_t> optInt(pugi::xml_node n, const char* name) {
  pugi::xml_node c = n.child(name);
  if (!c) {
    return std::nullopt;
  }
  return std::stoll(c.child_value());
}

template <class T>
std::string show(const std::optional<T>& v) {
  return v ? fmt::format("{}", *v) : "-";
}

inline std::string show(const sdk::LaunchTemplateNetworkInterface& ni) {
  return fmt::format(
      "carrier={} public={} delete={} description={} device={} card={} type={} v4={} v6={} "
      "groups={} subnet={}",
      show(ni.associateCarrierIpAddress), show(ni.associatePublicIpAddress),
      show(ni.deleteOnTermination), ni.description, ni.deviceIndex, show(ni.networkCardIndex),
      ni.interfaceType, show(ni.ipv4PrefixCount), show(ni.ipv6PrefixCount),
      fmt::join(ni.groups, ","), ni.subnetId);
}

// "tcp=600 udp-stream=90 udp=45", or "none".
inline std::string show(const std::optional<sdk::ConnectionTracking>& c) {
  if (!c) {
    return "none";
  }
  return fmt::format("tcp={} udp-stream={} udp={}", show(c->tcpEstablishedTimeout),
                     show(c->udpStreamTimeout), show(c->udpTimeout));
}

inline std::string show(const sdk::LaunchTemplateBlockDevice& d) {
  if (!d.ebs) {
    return d.deviceName;
  }
  const sdk::EbsBlockDevice& e = *d.ebs;
  return fmt::format("{} delete={} encrypted={} iops={} throughput={} size={} kms={} type={}",
                     d.deviceName, show(e.deleteOnTermination), show(e.encrypted), show(e.iops),
                     show(e.throughput), show(e.volumeSizeGiB), e.kmsKeyId, e.volumeType);
}

template <class T>
std::vector<std::string> showAll(const std::vector<T>& items) {
  std::vector<std::string> out;
  for (const T& item : items) {
    out.push_back(show(item));
  }
  return out;
}

// Version 1 of the template `name`, as the peer describes it.
inline sdk::LaunchTemplateData readBack(emulators::testing::QueryClient& wire,
                                        const std::string& name) {
  sdk::LaunchTemplateData d;
  auto response = wire.call("DescribeLaunchTemplateVersions", {{"LaunchTemplateName", name}});
  EXPECT_TRUE(response) << response.error().message();
  if (!response) {
    return d;
  }
  EXPECT_EQ(response->status, 200) << response->body;
  pugi::xml_document doc;
  EXPECT_TRUE(doc.load_string(response->body.c_str()));
  pugi::xml_node data = doc.document_element()
                            .child("launchTemplateVersionSet")
                            .child("item")
                            .child("launchTemplateData");
  EXPECT_TRUE(data) << response->body;
  d.imageId = data.child_value("imageId");
  d.userData = data.child_value("userData");
  d.instanceProfileName = data.child("iamInstanceProfile").child_value("name");
  for (pugi::xml_node id : data.child("securityGroupIdSet").children("item")) {
    d.securityGroupIds.push_back(id.child_value());
  }
  for (pugi::xml_node item : data.child("blockDeviceMappingSet").children("item")) {
    sdk::LaunchTemplateBlockDevice b;
    b.deviceName = item.child_value("deviceName");
    if (pugi::xml_node ebs = item.child("ebs")) {
      sdk::EbsBlockDevice e;
      e.deleteOnTermination = optBool(ebs, "deleteOnTermination");
      e.encrypted = optBool(ebs, "encrypted");
      e.iops = optInt(ebs, "iops");
      e.throughput = optInt(ebs, "throughput");
      e.volumeSizeGiB = optInt(ebs, "volumeSize");
      e.kmsKeyId = ebs.child_value("kmsKeyId");
      e.snapshotId = ebs.child_value("snapshotId");
      e.volumeType = ebs.child_value("volumeType");
      b.ebs = e;
    }
    d.blockDeviceMappings.push_back(b);
  }
  pugi::xml_node m = data.child("metadataOptions");
  d.metadataOptions.httpEndpoint = m.child_value("httpEndpoint");
  d.metadataOptions.httpProtocolIpv6 = m.child_value("httpProtocolIpv6");
  d.metadataOptions.httpTokens = m.child_value("httpTokens");
  if (auto hops = optInt(m, "httpPutResponseHopLimit")) {
    d.metadataOptions.httpPutResponseHopLimit = static_cast<int>(*hops);
  }
  d.monitoring = optBool(data.child("monitoring"), "enabled");
  d.nestedVirtualization = data.child("cpuOptions").child_value("nestedVirtualization");
  for (pugi::xml_node item : data.child("networkInterfaceSet").children("item")) {
    sdk::LaunchTemplateNetworkInterface ni;
    ni.associateCarrierIpAddress = optBool(item, "associateCarrierIpAddress");
    ni.associatePublicIpAddress = optBool(item, "associatePublicIpAddress");
    ni.deleteOnTermination = optBool(item, "deleteOnTermination");
    ni.description = item.child_value("description");
    ni.deviceIndex = static_cast<int>(optInt(item, "deviceIndex").value_or(-1));
    if (auto card = optInt(item, "networkCardIndex")) {
      ni.networkCardIndex = static_cast<int>(*card);
    }
    ni.interfaceType = item.child_value("interfaceType");
    if (auto v4 = optInt(item, "ipv4PrefixCount")) {
      ni.ipv4PrefixCount = static_cast<int>(*v4);
    }
    if (auto v6 = optInt(item, "ipv6PrefixCount")) {
      ni.ipv6PrefixCount = static_cast<int>(*v6);
    }
    for (pugi::xml_node g : item.child("groupSet").children()) {
      ni.groups.push_back(g.child_value());
    }
    ni.subnetId = item.child_value("subnetId");
    if (pugi::xml_node ct = item.child("connectionTrackingSpecification")) {
      const auto narrow = [](std::optional<int64_t> v) {
        return v ? std::optional<int>(static_cast<int>(*v)) : std::nullopt;
      };
      ni.connectionTracking = sdk::ConnectionTracking{narrow(optInt(ct, "tcpEstablishedTimeout")),
                                                      narrow(optInt(ct, "udpStreamTimeout")),
                                                      narrow(optInt(ct, "udpTimeout"))};
    }
    d.networkInterfaces.push_back(ni);
  }
  for (pugi::xml_node spec : data.child("tagSpecificationSet").children("item")) {
    if (std::string(spec.child_value("resourceType")) != "instance") {
      continue;
    }
    for (pugi::xml_node tag : spec.child("tagSet").children("item")) {
      d.resourceTags[tag.child_value("key")] = tag.child_value("value");
    }
  }
  return d;
}

}  // namespace nodewright::cloud::aws::testing
