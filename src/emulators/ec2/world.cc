#include "emulators/ec2/world.h"

#include <memory>
#include <set>
#include <utility>

#include <fmt/format.h>

#include "core/hash.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

constexpr std::string_view kEksOwner = "602401143452";
constexpr std::string_view kBottlerocketOwner = "092701018921";
// The account Amazon's Windows AMIs come from (EC2 user guide, "Find a Windows AMI").
constexpr std::string_view kWindowsOwner = "801119661308";
constexpr std::string_view kReleaseDate = "2024-11-15T00:00:00.000Z";
constexpr std::string_view kRelease = "v20241115";

Tags discoveryTags(std::string name) {
  return {{"Name", std::move(name)}, {"karpenter.sh/discovery", "nodewright"}};
}

// A stable AMI id per name, so a world seeds the same ids in every run and every version.
std::string imageId(std::string_view name) {
  core::Hasher h;
  h.addString(name);
  return fmt::format("ami-0{:016x}", h.value());
}

ImageConfig eksImage(std::string name, Architecture arch, std::string_view owner,
                     std::vector<std::string> parameters) {
  ImageConfig image;
  image.id = imageId(name);
  image.description = "EKS optimized image " + name;
  image.name = std::move(name);
  image.architecture = arch;
  image.ownerId = std::string(owner);
  image.ownerAlias = "amazon";
  image.creationDate = std::string(kReleaseDate);
  image.ssmParameters = std::move(parameters);
  return image;
}

// Source: the AL2023 user guide ("The boot mode of AL2023 AMIs is set to uefi-preferred").
// GUESS: EKS's AL2023 node images keep it; AL2 boots UEFI on Graviton only (EC2 user guide, UEFI
// requirements), legacy BIOS elsewhere.
constexpr std::string_view kAl2023BootMode = "uefi-preferred";
std::string al2BootMode(Architecture arch) {
  return arch == Architecture::Arm64 ? "uefi" : "legacy-bios";
}

// Versions as "1.31"; AL2 images end with 1.32, as EKS's do.
bool hasAl2(std::string_view version) {
  int major = 0, minor = 0;
  return std::sscanf(std::string(version).c_str(), "%d.%d", &major, &minor) == 2 &&
         (major < 1 || (major == 1 && minor <= 32));
}

void addEksImages(std::vector<ImageConfig>& out, const std::string& v) {
  const std::string eks = "/aws/service/eks/optimized-ami/" + v;
  struct Al2023 {
    const char* arch;
    Architecture architecture;
    const char* variant;
  };
  for (const Al2023& a : {Al2023{"x86_64", Architecture::X86_64, "standard"},
                          Al2023{"arm64", Architecture::Arm64, "standard"},
                          Al2023{"x86_64", Architecture::X86_64, "nvidia"},
                          Al2023{"arm64", Architecture::Arm64, "nvidia"},
                          Al2023{"x86_64", Architecture::X86_64, "neuron"}}) {
    const std::string name =
        fmt::format("amazon-eks-node-al2023-{}-{}-{}-{}", a.arch, a.variant, v, kRelease);
    const std::string base = fmt::format("{}/amazon-linux-2023/{}/{}", eks, a.arch, a.variant);
    out.push_back(eksImage(name, a.architecture, kEksOwner,
                           {base + "/recommended/image_id", base + "/" + name + "/image_id"}));
    out.back().bootMode = std::string(kAl2023BootMode);
  }
  if (hasAl2(v)) {
    struct Al2 {
      const char* path;
      const char* name;
      Architecture architecture;
    };
    for (const Al2& a : {Al2{"amazon-linux-2", "amazon-eks-node", Architecture::X86_64},
                         Al2{"amazon-linux-2-arm64", "amazon-eks-arm64-node", Architecture::Arm64},
                         Al2{"amazon-linux-2-gpu", "amazon-eks-gpu-node", Architecture::X86_64}}) {
      const std::string name = fmt::format("{}-{}-{}", a.name, v, kRelease);
      out.push_back(eksImage(name, a.architecture, kEksOwner,
                             {fmt::format("{}/{}/recommended/image_id", eks, a.path),
                              fmt::format("{}/{}/{}/image_id", eks, a.path, name)}));
      out.back().bootMode = al2BootMode(a.architecture);
    }
  }
  struct Bottlerocket {
    const char* flavor;
    const char* arch;
    Architecture architecture;
  };
  for (const Bottlerocket& b : {Bottlerocket{"", "x86_64", Architecture::X86_64},
                                Bottlerocket{"", "arm64", Architecture::Arm64},
                                Bottlerocket{"-nvidia", "x86_64", Architecture::X86_64},
                                Bottlerocket{"-nvidia", "arm64", Architecture::Arm64}}) {
    const std::string name =
        fmt::format("bottlerocket-aws-k8s-{}{}-{}-v1.26.2-360b7a38", v, b.flavor, b.arch);
    const std::string base =
        fmt::format("/aws/service/bottlerocket/aws-k8s-{}{}/{}", v, b.flavor, b.arch);
    out.push_back(eksImage(name, b.architecture, kBottlerocketOwner,
                           {base + "/latest/image_id", base + "/1.26.2/image_id"}));
  }
}

// The EKS-optimized Windows Server Core images, x86_64 only, under the SSM names of AWS's
// ami-windows-latest tree (the ones Karpenter's windows2019/2022/2025 aliases read). Windows
// Server 2025 images start with Kubernetes 1.35. GUESS: the first version AWS published them
// for; Karpenter v1.14 refuses the windows2025 alias before 1.35, so nothing earlier is read.
void addWindowsImages(std::vector<ImageConfig>& out, const std::string& v) {
  int major = 0, minor = 0;
  const bool has2025 = std::sscanf(v.c_str(), "%d.%d", &major, &minor) == 2 &&
                       (major > 1 || (major == 1 && minor >= 35));
  for (const char* year : {"2019", "2022", "2025"}) {
    if (std::string_view(year) == "2025" && !has2025) {
      continue;
    }
    const std::string base =
        fmt::format("Windows_Server-{}-English-Core-EKS_Optimized-{}", year, v);
    // Windows releases are named by date ("2024.11.15"), not "v20241115".
    const std::string name = base + "-2024.11.15";
    out.push_back(eksImage(name, Architecture::X86_64, kWindowsOwner,
                           {"/aws/service/ami-windows-latest/" + base + "/image_id"}));
    out.back().description = fmt::format(
        "Microsoft Windows Server {} Core optimized for EKS {} and provided by Amazon", year, v);
    out.back().platform = "windows";
  }
}

// Addresses of a CIDR block less the five AWS reserves in every subnet; 0 when malformed.
int64_t usableAddresses(std::string_view cidr) {
  auto slash = cidr.find('/');
  if (slash == std::string_view::npos) {
    return 0;
  }
  int prefix = -1;
  if (std::sscanf(std::string(cidr.substr(slash + 1)).c_str(), "%d", &prefix) != 1 || prefix < 16 ||
      prefix > 28) {
    return 0;
  }
  return (int64_t{1} << (32 - prefix)) - 5;
}

template <class T>
AttributesPtr share(T value) {
  return std::make_shared<const T>(std::move(value));
}

// The new resource's id.
core::Result<std::string> create(ResourceStore& store, std::string_view kind, std::string id,
                                 std::string prefix, std::string state, Tags tags,
                                 AttributesPtr attributes) {
  NewResource spec;
  spec.type = std::string(kind);
  spec.id = std::move(id);
  spec.idPrefix = std::move(prefix);
  spec.state = std::move(state);
  spec.tags = std::move(tags);
  spec.attributes = std::move(attributes);
  auto created = store.create(std::move(spec));
  if (!created) {
    return core::fail(created.error());
  }
  return created->resource.id;
}

}  // namespace

WorldConfig defaultWorld() {
  WorldConfig world;
  world.zones = {
      {"us-east-1a", "use1-az1"}, {"us-east-1b", "use1-az2"}, {"us-east-1c", "use1-az4"}};

  VpcConfig main;
  main.id = "vpc-0e2c4a6f8b1d30001";
  main.cidrBlock = "10.0.0.0/16";
  main.ipv6CidrBlock = "2600:1f18:4e2c:4a00::/56";
  main.tags = discoveryTags("nodewright");
  const char* letters = "abc";
  for (int i = 0; i < 3; ++i) {
    SubnetConfig subnet;
    subnet.id = fmt::format("subnet-0e2c4a6f8b1d3000{}", letters[i]);
    subnet.zone = world.zones[static_cast<size_t>(i)].name;
    subnet.cidrBlock = fmt::format("10.0.{}.0/19", i * 32);
    subnet.ipv6CidrBlock = fmt::format("2600:1f18:4e2c:4a0{}::/64", i);
    subnet.tags = discoveryTags("nodewright-private-" + subnet.zone);
    setTags(subnet.tags, {{"kubernetes.io/role/internal-elb", "1"}});
    main.subnets.push_back(std::move(subnet));
  }
  main.securityGroups.push_back({"sg-0e2c4a6f8b1d30001", "nodewright-node",
                                 "Nodes of the nodewright cluster",
                                 discoveryTags("nodewright-node")});
  main.securityGroups.push_back(
      {"sg-0e2c4a6f8b1d30000", "default", "default VPC security group", {}});
  world.vpcs.push_back(std::move(main));

  VpcConfig other;
  other.id = "vpc-0f0f0f0f0f0f00002";
  other.cidrBlock = "10.1.0.0/16";
  other.tags = {{"Name", "other"}};
  other.subnets.push_back({"subnet-0f0f0f0f0f0f0000a",
                           "us-east-1a",
                           "10.1.0.0/24",
                           "",
                           {},
                           false,
                           {{"Name", "other"}}});
  other.securityGroups.push_back(
      {"sg-0f0f0f0f0f0f00002", "other", "A group of another VPC", {{"Name", "other"}}});
  world.vpcs.push_back(std::move(other));

  world.kubernetesVersions = {"1.30", "1.31", "1.32", "1.33", "1.34", "1.35"};
  for (auto [arch, name] : {std::pair{Architecture::X86_64, "nodewright-custom-al2023-x86_64"},
                            std::pair{Architecture::Arm64, "nodewright-custom-al2023-arm64"}}) {
    ImageConfig image;
    image.id = imageId(name);
    image.name = name;
    image.description = "A custom image owned by the account";
    image.architecture = arch;
    image.ownerId = world.accountId;
    image.creationDate = std::string(kReleaseDate);
    image.tags = discoveryTags(name);
    world.images.push_back(std::move(image));
  }
  return world;
}

const ZoneConfig* World::zone(std::string_view name) const {
  for (const ZoneConfig& z : zones) {
    if (z.name == name) {
      return &z;
    }
  }
  return nullptr;
}

core::Result<World> seedWorld(ResourceStore& store, const WorldConfig& config) {
  World world;
  world.region = config.region;
  world.accountId = config.accountId;
  world.zones = config.zones;
  for (const VpcConfig& vpc : config.vpcs) {
    VpcAttributes attrs;
    attrs.cidrBlock = vpc.cidrBlock;
    attrs.isDefault = vpc.isDefault;
    attrs.ipv6CidrBlock = vpc.ipv6CidrBlock;
    auto vpcId = create(store, kind::kVpc, vpc.id, "vpc", "available", vpc.tags, share(attrs));
    if (!vpcId) {
      return core::fail(vpcId.error());
    }
    for (const SubnetConfig& subnet : vpc.subnets) {
      const ZoneConfig* zone = world.zone(subnet.zone);
      if (!zone) {
        return core::fail(core::Error::invalid(fmt::format(
            "subnet {}: zone {} is not one of the world's zones", subnet.id, subnet.zone)));
      }
      SubnetAttributes s;
      s.vpcId = *vpcId;
      s.zone = zone->name;
      s.zoneId = zone->zoneId;
      s.cidrBlock = subnet.cidrBlock;
      s.ipv6CidrBlock = subnet.ipv6CidrBlock;
      s.availableIps = subnet.availableIps.value_or(usableAddresses(subnet.cidrBlock));
      s.mapPublicIpOnLaunch = subnet.mapPublicIpOnLaunch;
      if (auto st =
              create(store, kind::kSubnet, subnet.id, "subnet", "available", subnet.tags, share(s));
          !st) {
        return core::fail(st.error());
      }
    }
    for (const SecurityGroupConfig& group : vpc.securityGroups) {
      SecurityGroupAttributes g;
      g.name = group.name;
      g.description = group.description;
      g.vpcId = *vpcId;
      g.ipv6Egress = !attrs.ipv6CidrBlock.empty();
      if (auto st = create(store, kind::kSecurityGroup, group.id, "sg", "available", group.tags,
                           share(g));
          !st) {
        return core::fail(st.error());
      }
    }
  }
  std::vector<ImageConfig> images;
  for (const std::string& version : config.kubernetesVersions) {
    addEksImages(images, version);
    addWindowsImages(images, version);
  }
  images.insert(images.end(), config.images.begin(), config.images.end());
  for (const ImageConfig& image : images) {
    ImageAttributes a;
    a.name = image.name;
    a.description = image.description;
    a.ownerId = image.ownerId.empty() ? config.accountId : image.ownerId;
    a.ownerAlias = image.ownerAlias;
    a.architecture = image.architecture;
    a.creationDate = image.creationDate.empty() ? std::string(kReleaseDate) : image.creationDate;
    a.deprecationTime = image.deprecationTime;
    a.bootMode = image.bootMode;
    if (image.platform == "windows") {
      a.platformDetails = "Windows";
      a.rootDeviceName = "/dev/sda1";
    }
    auto id = create(store, kind::kImage, image.id, "ami", "available", image.tags, share(a));
    if (!id) {
      return core::fail(id.error());
    }
    for (const std::string& parameter : image.ssmParameters) {
      world.ssmParameters[parameter] = *id;
    }
  }
  return world;
}

}  // namespace nodewright::emulators::ec2
