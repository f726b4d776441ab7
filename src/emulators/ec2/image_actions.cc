// DescribeImages over the AMIs the world seeded: the EKS-optimized images owned by Amazon's
// accounts (alias "amazon") and the account's own images; CopyImage adds the account's own
// copies (with SSM PutParameter, how a test publishes a new image behind an alias).
#include <algorithm>
#include <cctype>
#include <iterator>

#include <fmt/format.h>

#include "aws/xml.h"
#include "core/hash.h"
#include "core/time.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/resources.h"
#include "emulators/ec2/tagging.h"
#include "emulators/ec2/xml_names.h"

namespace nodewright::emulators::ec2 {
namespace {

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

// EC2's Platform: "windows" for Windows images, absent (empty here) for Linux/UNIX ones.
std::string_view platformOf(const ImageAttributes& a) {
  return a.platformDetails.starts_with("Windows") ? "windows" : "";
}

// The billing code: Linux/UNIX is RunInstances, Windows RunInstances:0002 (EC2 user guide,
// "AMI billing information fields").
std::string usageOperation(const ImageAttributes& a) {
  return platformOf(a).empty() ? "RunInstances" : "RunInstances:0002";
}

std::string imageLocation(const ImageAttributes& a) {
  return fmt::format("{}/{}", a.ownerAlias.empty() ? a.ownerId : a.ownerAlias, a.name);
}

std::vector<std::string> imageValues(const Resource& r, std::string_view n) {
  const auto* a = r.as<ImageAttributes>();
  if (!a) {
    return {};
  }
  if (n == "image-id") {
    return {r.id};
  }
  if (n == "name") {
    return {a->name};
  }
  if (n == "description") {
    return {a->description};
  }
  if (n == "architecture") {
    return {std::string(architectureName(a->architecture))};
  }
  if (n == "owner-id") {
    return {a->ownerId};
  }
  if (n == "owner-alias") {
    return a->ownerAlias.empty() ? std::vector<std::string>{}
                                 : std::vector<std::string>{a->ownerAlias};
  }
  if (n == "state") {
    return {r.state.empty() ? "available" : r.state};
  }
  if (n == "image-type") {
    return {"machine"};
  }
  if (n == "is-public") {
    return {a->ownerAlias.empty() ? "false" : "true"};
  }
  if (n == "root-device-type") {
    return {"ebs"};
  }
  if (n == "root-device-name") {
    return {a->rootDeviceName};
  }
  if (n == "virtualization-type") {
    return {"hvm"};
  }
  if (n == "hypervisor") {
    return {"xen"};
  }
  if (n == "platform-details") {
    return {a->platformDetails};
  }
  if (n == "platform") {
    return {std::string(platformOf(*a))};
  }
  if (n == "creation-date") {
    return {a->creationDate};
  }
  if (n == "manifest-location") {
    return {imageLocation(*a)};
  }
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
  if (!platformOf(*a).empty()) {
    addText(item, "platform", std::string(platformOf(*a)));
  }
  addText(item, "platformDetails", a->platformDetails);
  addText(item, "usageOperation", usageOperation(*a));
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
       "hypervisor", "platform", "platform-details", "creation-date", "manifest-location"},
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

// EC2's creationDate: milliseconds, UTC ("2024-11-15T00:00:00.000Z").
std::string creationDate(core::TimePoint now) {
  std::string text = core::Time(std::chrono::floor<std::chrono::seconds>(now)).toString();
  return text.substr(0, text.size() - 1) + ".000Z";
}

// A copy in this region of an image the caller can see, owned by the account, as a new build of
// the same image: architecture, boot mode, root device and platform carry over. GUESS: EC2 keeps
// a copy pending for minutes while it copies the snapshots; here it is available at once.
aws::ApiResult<std::string> copyImage(ActionContext& ctx) {
  const aws::Params& p = ctx.params;
  auto sourceId = p.str("SourceImageId");
  if (!sourceId) {
    return failWith(sourceId);
  }
  auto sourceRegion = p.str("SourceRegion");
  if (!sourceRegion) {
    return failWith(sourceRegion);
  }
  auto name = p.str("Name");
  if (!name) {
    return failWith(name);
  }
  if (!wellFormedImageId(*sourceId)) {
    return aws::apiFail("InvalidAMIID.Malformed",
                        fmt::format("Invalid id: \"{}\" (expecting \"ami-...\")", *sourceId));
  }
  if (*sourceRegion != ctx.world.region) {
    // GUESS: code and message; the emulator holds one region.
    return aws::apiFail("InvalidParameterValue",
                        fmt::format("Invalid source region {}: this endpoint serves {}",
                                    *sourceRegion, ctx.world.region));
  }
  // CONFIRMED: AMI names are 3 to 128 characters (the RegisterImage and CopyImage references).
  if (name->size() < 3 || name->size() > 128) {
    return aws::apiFail("InvalidAMIName.Malformed",
                        fmt::format("AMI names must be between 3 and 128 characters long, and "
                                    "may contain letters, numbers, '(', ')', '.', '-', '/' and "
                                    "'_': {}",
                                    *name));
  }
  auto tags = parseTagSpecifications(p, "TagSpecification", {"image", "snapshot"});
  if (!tags) {
    return failWith(tags);
  }
  if (auto dry = checkDryRun(p); !dry) {
    return failWith(dry);
  }
  ResourceStore& store = ctx.engine.store();
  auto source = store.get(kind::kImage, *sourceId);
  const auto* from = source && source->live() ? source->as<ImageAttributes>() : nullptr;
  if (from == nullptr) {
    return aws::apiFail("InvalidAMIID.NotFound",
                        fmt::format("The image id '[{}]' does not exist", *sourceId));
  }
  const World& world = ctx.world;
  auto sameName = store.list(kind::kImage, [&](const Resource& r) {
    const auto* a = r.as<ImageAttributes>();
    return a != nullptr && a->ownerId == world.accountId && a->name == *name;
  });
  if (!sameName.empty()) {
    // CONFIRMED: the code; GUESS: the message's wording.
    return aws::apiFail(
        "InvalidAMIName.Duplicate",
        fmt::format("AMI name {} is already in use by AMI {}", *name, sameName.front().id));
  }
  auto copy = std::make_shared<ImageAttributes>(*from);
  copy->name = *name;
  copy->description = p.strOr("Description", from->description);
  copy->ownerId = world.accountId;
  copy->ownerAlias.clear();
  copy->creationDate = creationDate(ctx.engine.time().now());
  copy->deprecationTime.reset();
  NewResource spec;
  spec.type = std::string(kind::kImage);
  spec.idPrefix = "ami";
  spec.state = "available";
  spec.tags = tagsFor(*tags, "image");
  spec.attributes = std::move(copy);
  auto created = store.create(std::move(spec));
  if (!created) {
    return aws::apiFail("InternalError", created.error().message());
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  addText(response.root(), "imageId", created->resource.id);
  return response.str();
}

}  // namespace

void addImageActions(ActionTable& table) {
  table["DescribeImages"] = {bucket::kDescribe, describeImages};
  table["CopyImage"] = {bucket::kMutating, copyImage};
}

}  // namespace nodewright::emulators::ec2
