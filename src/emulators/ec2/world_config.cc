#include <fstream>
#include <sstream>

#include "api/yaml.h"
#include "emulators/ec2/world.h"
#include "emulators/engine/config_fields.h"

namespace nodewright::emulators::ec2 {
namespace {

using api::FieldErrors;
using api::FieldPath;
using api::Json;

// Tags are written as a map {key: value}, as in Karpenter's selector terms.
Tags readTags(ConfigFields& f, FieldErrors& errors) {
  Tags tags;
  const Json* value = f.field("tags");
  if (!value || value->is_null()) {
    return tags;
  }
  if (!value->is_object()) {
    errors.push_back({f.path("tags").str(), "must be a map of tag keys to values"});
    return tags;
  }
  for (const auto& [key, v] : value->items()) {
    if (!v.is_string()) {
      errors.push_back({f.path("tags").child(key).str(), "must be a string"});
      continue;
    }
    setTags(tags, {{key, v.get<std::string>()}});
  }
  return tags;
}

// Calls `each` with the fields of every element of the list `name`.
template <class Each>
void forEach(ConfigFields& f, std::string_view name, FieldErrors& errors, Each each) {
  const Json* list = f.field(name);
  if (!list || list->is_null()) {
    return;
  }
  if (!list->is_array()) {
    errors.push_back({f.path(name).str(), "must be a list"});
    return;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    ConfigFields item((*list)[i], f.path(name).index(i), errors);
    each(item);
    item.rejectUnknown();
  }
}

std::vector<std::string> readStrings(ConfigFields& f, std::string_view name, FieldErrors& errors) {
  std::vector<std::string> out;
  const Json* list = f.field(name);
  if (!list || list->is_null()) {
    return out;
  }
  if (!list->is_array()) {
    errors.push_back({f.path(name).str(), "must be a list of strings"});
    return out;
  }
  for (size_t i = 0; i < list->size(); ++i) {
    if (!(*list)[i].is_string()) {
      errors.push_back({f.path(name).index(i).str(), "must be a string"});
      continue;
    }
    out.push_back((*list)[i].get<std::string>());
  }
  return out;
}

SubnetConfig readSubnet(ConfigFields& f, FieldErrors& errors) {
  SubnetConfig s;
  s.id = f.string("id").value_or("");
  s.zone = f.string("zone").value_or("");
  if (s.zone.empty()) {
    f.error("zone", "is required");
  }
  s.cidrBlock = f.string("cidrBlock").value_or("");
  if (s.cidrBlock.empty()) {
    f.error("cidrBlock", "is required");
  }
  s.ipv6CidrBlock = f.string("ipv6CidrBlock").value_or("");
  s.availableIps = f.integer("availableIps");
  if (s.availableIps && *s.availableIps < 0) {
    f.error("availableIps", "must not be negative");
  }
  s.mapPublicIpOnLaunch = f.boolean("mapPublicIpOnLaunch").value_or(false);
  s.tags = readTags(f, errors);
  return s;
}

VpcConfig readVpc(ConfigFields& f, FieldErrors& errors) {
  VpcConfig vpc;
  vpc.id = f.string("id").value_or("");
  vpc.cidrBlock = f.string("cidrBlock").value_or("10.0.0.0/16");
  vpc.ipv6CidrBlock = f.string("ipv6CidrBlock").value_or("");
  vpc.isDefault = f.boolean("isDefault").value_or(false);
  vpc.tags = readTags(f, errors);
  forEach(f, "subnets", errors,
          [&](ConfigFields& s) { vpc.subnets.push_back(readSubnet(s, errors)); });
  forEach(f, "securityGroups", errors, [&](ConfigFields& g) {
    SecurityGroupConfig group;
    group.id = g.string("id").value_or("");
    group.name = g.string("name").value_or("");
    if (group.name.empty()) {
      g.error("name", "is required");
    }
    group.description = g.string("description").value_or(group.name);
    group.tags = readTags(g, errors);
    vpc.securityGroups.push_back(std::move(group));
  });
  return vpc;
}

ImageConfig readImage(ConfigFields& f, FieldErrors& errors) {
  ImageConfig image;
  image.id = f.string("id").value_or("");
  image.name = f.string("name").value_or("");
  if (image.name.empty()) {
    f.error("name", "is required");
  }
  image.description = f.string("description").value_or("");
  if (auto arch = f.string("architecture")) {
    if (auto parsed = parseArchitecture(*arch)) {
      image.architecture = *parsed;
    } else {
      f.error("architecture", "unknown architecture \"" + *arch + "\"");
    }
  }
  image.ownerId = f.string("ownerId").value_or("");
  image.ownerAlias = f.string("ownerAlias").value_or("");
  image.creationDate = f.string("creationDate").value_or("");
  image.deprecationTime = f.string("deprecationTime");
  image.bootMode = f.string("bootMode").value_or("");
  image.platform = f.string("platform").value_or("");
  if (!image.platform.empty() && image.platform != "windows") {
    // EC2's Platform field has no other value; Linux images leave it out.
    f.error("platform", "must be \"windows\" or absent");
  }
  image.tags = readTags(f, errors);
  image.ssmParameters = readStrings(f, "ssmParameters", errors);
  return image;
}

}  // namespace

core::Result<WorldConfig> parseWorldConfig(std::string_view text) {
  auto docs = api::parseDocuments(text);
  if (!docs) {
    return core::fail(docs.error());
  }
  WorldConfig world = defaultWorld();
  if (docs->empty()) {
    return world;
  }
  if (docs->size() > 1 || !docs->front().errors.empty()) {
    return core::fail(core::Error::invalid("a world configuration is one YAML or JSON document"));
  }
  FieldErrors errors;
  ConfigFields f(docs->front().value, FieldPath(), errors);
  world.region = f.string("region").value_or(world.region);
  world.accountId = f.string("accountId").value_or(world.accountId);
  if (f.field("zones")) {
    world.zones.clear();
    forEach(f, "zones", errors, [&](ConfigFields& z) {
      ZoneConfig zone{z.string("name").value_or(""), z.string("zoneId").value_or("")};
      if (zone.name.empty()) {
        z.error("name", "is required");
      }
      world.zones.push_back(std::move(zone));
    });
  }
  if (f.field("vpcs")) {
    world.vpcs.clear();
    forEach(f, "vpcs", errors, [&](ConfigFields& v) { world.vpcs.push_back(readVpc(v, errors)); });
  }
  if (f.field("kubernetesVersions")) {
    world.kubernetesVersions = readStrings(f, "kubernetesVersions", errors);
  }
  if (f.field("images")) {
    world.images.clear();
    forEach(f, "images", errors,
            [&](ConfigFields& i) { world.images.push_back(readImage(i, errors)); });
  }
  f.rejectUnknown();
  if (!errors.empty()) {
    return core::fail(invalidConfig(errors));
  }
  return world;
}

core::Result<WorldConfig> loadWorldConfig(const std::string& path) {
  std::ifstream in(path);
  if (!in) {
    return core::fail(core::Error::invalid(path + ": cannot read the world configuration"));
  }
  std::stringstream text;
  text << in.rdbuf();
  auto world = parseWorldConfig(text.str());
  if (!world) {
    return core::fail(core::Error::invalid(path + ": " + world.error().message()));
  }
  return world;
}

}  // namespace nodewright::emulators::ec2
