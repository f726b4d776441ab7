// DescribeImages over the AMIs the world seeded: the EKS-optimized images owned by Amazon's
// accounts (alias "amazon") and the account's own images.
#include <algorithm>
#include <cctype>
#include <iterator>

#include <fmt/format.h>

#include "aws/xml.h"
#include "core/hash.h"
#include "core/time.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/resources.h"

namespace nodewright::emulators::ec2 {
namespace {

using aws::xml::addBool;
using aws::xml::addElement;
using aws::xml::addInt;
using aws::xml::addItem;
using aws::xml::addText;

// GUESS: the range, from the API reference's MaxResults of DescribeImages.
constexpr int64_t kMinResults = 5, kMaxResults = 1000;

constexpr std::string_view kOwnerAliases[] = {"amazon", "aws-marketplace", "aws-backup-vault"};

bool isOwnerAlias(std::string_view owner) {
  return std::find(std::begin(kOwnerAliases), std::end(kOwnerAliases), owner) !=
         std::end(kOwnerAliases);
}

// "ami-" and 8 or 17 lower-case hex digits, as EC2 issues them.
bool wellFormedImageId(std::string_view id) {
  if (!id.starts_with("ami-")) {
    return false;
  }
  std::string_view hex = id.substr(4);
  return (hex.size() == 8 || hex.size() == 17) && std::all_of(hex.begin(), hex.end(), [](char c) {
           return std::isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

bool wellFormedOwner(std::string_view owner) {
  return owner == "self" || isOwnerAlias(owner) ||
         (owner.size() == 12 && std::all_of(owner.begin(), owner.end(), [](char c) {
            return std::isdigit(static_cast<unsigned char>(c));
          }));
}

bool ownedBy(const ImageAttributes& a, std::string_view owner, const World& world) {
  if (owner == "self") {
    return a.ownerId == world.accountId;
  }
  if (isOwnerAlias(owner)) {
    return a.ownerAlias == owner;
  }
  return a.ownerId == owner;
}

bool deprecated(const ImageAttributes& a, core::TimePoint now) {
  if (!a.deprecationTime) {
    return false;
  }
  auto at = core::Time::parse(*a.deprecationTime);
  return at && at->point() <= now;
}

std::string imageLocation(const ImageAttributes& a) {
  return fmt::format("{}/{}", a.ownerAlias.empty() ? a.ownerId : a.ownerAlias, a.name);
}

std::vector<std::string> imageValues(const Resource& r, std::string_view n) {
  const auto* a = r.as<ImageAttributes>();
  if (!a) return {};
  if (n == "image-id") return {r.id};
  if (n == "name") return {a->name};
  if (n == "description") return {a->description};
  if (n == "architecture") return {std::string(architectureName(a->architecture))};
  if (n == "owner-id") return {a->ownerId};
  if (n == "owner-alias") {
    return a->ownerAlias.empty() ? std::vector<std::string>{}
                                 : std::vector<std::string>{a->ownerAlias};
  }
  if (n == "state") return {r.state.empty() ? "available" : r.state};
  if (n == "image-type") return {"machine"};
  if (n == "is-public") return {a->ownerAlias.empty() ? "false" : "true"};
  if (n == "root-device-type") return {"ebs"};
  if (n == "root-device-name") return {a->rootDeviceName};
  if (n == "virtualization-type") return {"hvm"};
  if (n == "hypervisor") return {"xen"};
  if (n == "platform-details") return {a->platformDetails};
  if (n == "creation-date") return {a->creationDate};
  if (n == "manifest-location") return {imageLocation(*a)};
  return {};
}

void addImage(pugi::xml_node item, const Resource& r) {
  const auto* a = r.as<ImageAttributes>();
  if (!a) {
    return;
  }
  addText(item, "imageId", r.id);
  addText(item, "imageLocation", imageLocation(*a));
  addText(item, "imageState", r.state.empty() ? "available" : r.state);
  addText(item, "imageOwnerId", a->ownerId);
  addText(item, "creationDate", a->creationDate);
  addBool(item, "isPublic", !a->ownerAlias.empty());
  addText(item, "architecture", architectureName(a->architecture));
  addText(item, "imageType", "machine");
  addText(item, "platformDetails", a->platformDetails);
  addText(item, "usageOperation", "RunInstances");
  if (!a->ownerAlias.empty()) {
    addText(item, "imageOwnerAlias", a->ownerAlias);
  }
  addText(item, "name", a->name);
  if (!a->description.empty()) {
    addText(item, "description", a->description);
  }
  addText(item, "rootDeviceType", "ebs");
  addText(item, "rootDeviceName", a->rootDeviceName);
  pugi::xml_node mapping = addItem(addElement(item, "blockDeviceMapping"));
  addText(mapping, "deviceName", a->rootDeviceName);
  pugi::xml_node ebs = addElement(mapping, "ebs");
  core::Hasher h;
  h.addString(r.id);
  addText(ebs, "snapshotId", fmt::format("snap-{:017x}", h.value() & 0xfffffffffffffffULL));
  addInt(ebs, "volumeSize", 20);
  addBool(ebs, "deleteOnTermination", true);
  addText(ebs, "volumeType", "gp3");
  addBool(ebs, "encrypted", false);
  addText(item, "virtualizationType", "hvm");
  addText(item, "hypervisor", "xen");
  addBool(item, "enaSupport", true);
  addText(item, "sriovNetSupport", "simple");
  if (!a->bootMode.empty()) {
    addText(item, "bootMode", a->bootMode);
  }
  if (a->deprecationTime) {
    addText(item, "deprecationTime", *a->deprecationTime);
  }
  addTagSet(item, r.tags);
}

aws::ApiResult<std::string> describeImages(ActionContext& ctx) {
  auto request = parseDescribeRequest(
      ctx.params, "ImageId",
      {"image-id", "name", "description", "architecture", "owner-id", "owner-alias", "state",
       "image-type", "is-public", "root-device-type", "root-device-name", "virtualization-type",
       "hypervisor", "platform-details", "creation-date", "manifest-location"},
      kMinResults, kMaxResults);
  if (!request) {
    return tl::unexpected(request.error());
  }
  auto owners = ctx.params.strings("Owner");
  if (!owners) {
    return tl::unexpected(owners.error());
  }
  auto includeDeprecated = ctx.params.optBoolean("IncludeDeprecated");
  if (!includeDeprecated) {
    return tl::unexpected(includeDeprecated.error());
  }
  for (const std::string& owner : *owners) {
    if (!wellFormedOwner(owner)) {
      // GUESS: code and message.
      return aws::apiFail("InvalidUserID.Malformed", fmt::format("Invalid user id: \"{}\"", owner));
    }
  }
  for (const std::string& id : request->ids) {
    if (!wellFormedImageId(id)) {
      // GUESS: the message.
      return aws::apiFail("InvalidAMIID.Malformed",
                          fmt::format("Invalid id: \"{}\" (expecting \"ami-...\")", id));
    }
  }
  ResourceStore& store = ctx.engine.store();
  if (auto missing = missingIds(store, kind::kImage, request->ids); !missing.empty()) {
    // Source: EC2's message for one missing image (cartography-cncf/cartography#721). GUESS:
    // the plural for several.
    return aws::apiFail("InvalidAMIID.NotFound",
                        missing.size() == 1
                            ? fmt::format("The image id '[{}]' does not exist", missing.front())
                            : fmt::format("The image ids '[{}]' do not exist", joinIds(missing)));
  }
  if (auto ok = checkDryRun(ctx.params); !ok) {
    return tl::unexpected(ok.error());
  }
  // Deprecated images are left out unless asked for, except the account's own. GUESS: images
  // named by id are returned even when deprecated.
  const bool withDeprecated = includeDeprecated->value_or(false) || !request->ids.empty();
  const core::TimePoint now = ctx.engine.time().now();
  const World& world = ctx.world;
  auto visible = [&](const Resource& r) {
    const auto* a = r.as<ImageAttributes>();
    if (!a) {
      return false;
    }
    if (!owners->empty() && std::none_of(owners->begin(), owners->end(),
                                         [&](const auto& o) { return ownedBy(*a, o, world); })) {
      return false;
    }
    return withDeprecated || a->ownerId == world.accountId || !deprecated(*a, now);
  };
  Page page = findResources(store, kind::kImage, *request, imageValues, visible);
  return pageResponse(ctx, "imagesSet", page, addImage);
}

}  // namespace

void addImageActions(ActionTable& table) {
  table["DescribeImages"] = {bucket::kDescribe, describeImages};
}

}  // namespace nodewright::emulators::ec2
