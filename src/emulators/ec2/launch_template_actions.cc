#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <set>

#include "aws/xml.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/describe_actions.h"
#include "emulators/ec2/launch_template.h"
#include "emulators/ec2/param_reader.h"
#include "emulators/ec2/render.h"
#include "emulators/ec2/resources.h"
#include "emulators/ec2/tagging.h"
#include "emulators/ec2/xml_names.h"

// CreateLaunchTemplate, DescribeLaunchTemplates, DescribeLaunchTemplateVersions and
// DeleteLaunchTemplate.
namespace nodewright::emulators::ec2 {
namespace {

// CONFIRMED: the wording relayed in github-aws-runners/terraform-aws-github-runner#932; the code
// as the EC2 error reference lists it.
aws::ApiResult<void> checkName(const std::string& name) {
  const bool valid =
      name.size() >= 3 && name.size() <= 128 && std::all_of(name.begin(), name.end(), [](char c) {
        return std::isalnum(static_cast<unsigned char>(c)) ||
               std::string_view("-()./_").find(c) != std::string_view::npos;
      });
  if (!valid) {
    return aws::apiFail("InvalidLaunchTemplateName.MalformedException",
                        "A launch template name must be between 3 and 128 characters, and may "
                        "contain letters, numbers, and the following characters: - ( ) . / _.");
  }
  return {};
}

// botocore's LaunchTemplate members.
void renderTemplate(pugi::xml_node node, const Resource& r, bool withTags = true) {
  const auto* lt = r.as<LaunchTemplateAttributes>();
  addText(node, "launchTemplateId", r.id);
  addText(node, "launchTemplateName", lt->name);
  addTime(node, "createTime", r.created);
  addText(node, "createdBy", lt->createdBy);
  addInt(node, "defaultVersionNumber", lt->defaultVersion);
  addInt(node, "latestVersionNumber", lt->latestVersion());
  if (withTags) {
    addTagSet(node, r.tags);
  }
}

aws::ApiResult<std::string> createLaunchTemplate(ActionContext& ctx) {
  const aws::Params& p = ctx.params;
  auto name = p.str("LaunchTemplateName");
  if (!name) {
    return failWith(name);
  }
  if (auto ok = checkName(*name); !ok) {
    return failWith(ok);
  }
  // CONFIRMED: EC2's answer relayed in awsdocs/aws-cloudformation-user-guide#453.
  if (!p.has("LaunchTemplateData")) {
    return aws::apiFail("MissingParameter",
                        "No launch template data was provided. Launch template data is required "
                        "to create a launch template.");
  }
  auto data = parseLaunchTemplateData(p.sub("LaunchTemplateData"));
  if (!data) {
    return failWith(data);
  }
  auto tags = parseTagSpecifications(p, "TagSpecification", {"launch-template"});
  if (!tags) {
    return failWith(tags);
  }
  if (auto dry = checkDryRun(p); !dry) {
    return failWith(dry);
  }
  const std::string clientToken = p.strOr("ClientToken", "");
  auto attrs = std::make_shared<LaunchTemplateAttributes>();
  attrs->name = *name;
  attrs->clientToken = clientToken;
  attrs->createdBy = fmt::format("arn:aws:iam::{}:root", ctx.world.accountId);
  attrs->versions.push_back(std::make_shared<const LaunchTemplateVersion>(
      LaunchTemplateVersion{1, p.strOr("VersionDescription", ""), ctx.engine.time().now(),
                            attrs->createdBy, std::move(*data)}));

  NewResource spec;
  spec.type = std::string(kind::kLaunchTemplate);
  spec.idPrefix = "lt";
  spec.state = "available";
  spec.tags = tagsFor(*tags, "launch-template");
  spec.clientToken = *name;  // see LaunchTemplateAttributes
  spec.attributes = std::move(attrs);
  auto created = ctx.engine.store().create(std::move(spec));
  if (!created) {
    return aws::apiFail("InternalError", created.error().message(), 500);
  }
  if (!created->created) {
    const auto* existing = created->resource.as<LaunchTemplateAttributes>();
    // A retry with the request's ClientToken gets the template it created; anyone else finds
    // the name taken. CONFIRMED wording: getmoto/moto#5726 quoting EC2.
    if (clientToken.empty() || existing == nullptr || existing->clientToken != clientToken) {
      return aws::apiFail("InvalidLaunchTemplateName.AlreadyExistsException",
                          "Launch template name already in use.");
    }
  } else {
    ctx.engine.stats().recordCreate(clientToken);
  }
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  renderTemplate(addElement(response.root(), "launchTemplate"), created->resource);
  return response.str();
}

// GUESS: code from the EC2 error reference, wording ours.
aws::ApiResult<void> checkTemplateIds(const std::vector<std::string>& ids) {
  for (const std::string& id : ids) {
    if (!id.starts_with("lt-")) {
      return aws::apiFail("InvalidLaunchTemplateId.Malformed",
                          fmt::format("The specified ID for the launch template ({}) is not "
                                      "valid. A launch template ID begins with 'lt-'.",
                                      id));
    }
  }
  return {};
}

aws::ApiResult<std::string> describeLaunchTemplates(ActionContext& ctx) {
  auto request = parseDescribeRequest(ctx.params, "LaunchTemplateId",
                                      {"launch-template-name", "create-time"}, 1, 200);
  if (!request) {
    return failWith(request);
  }
  auto names = ctx.params.strings("LaunchTemplateName");
  if (!names) {
    return failWith(names);
  }
  if (auto ok = checkTemplateIds(request->ids); !ok) {
    return failWith(ok);
  }
  ResourceStore& store = ctx.engine.store();
  if (auto missing = missingIds(store, kind::kLaunchTemplate, request->ids); !missing.empty()) {
    // CONFIRMED: aws/karpenter-provider-aws#5665.
    return aws::apiFail("InvalidLaunchTemplateId.NotFound",
                        fmt::format("The specified launch template, with template ID {}, does "
                                    "not exist.",
                                    missing.front()));
  }
  for (const std::string& name : *names) {
    // GUESS: wording (Karpenter creates its template when it sees this code).
    if (!findLaunchTemplateByName(store, name)) {
      return aws::apiFail("InvalidLaunchTemplateName.NotFoundException",
                          "At least one of the launch templates specified in the request does "
                          "not exist.");
    }
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return failWith(dry);
  }
  const std::set<std::string, std::less<>> wanted(names->begin(), names->end());
  Page page = findResources(
      store, kind::kLaunchTemplate, *request,
      [](const Resource& r, std::string_view filter) -> std::vector<std::string> {
        if (filter == "launch-template-name") {
          return {r.as<LaunchTemplateAttributes>()->name};
        }
        if (filter == "create-time") {
          return {aws::xml::formatTimestamp(r.created)};
        }
        return {};
      },
      [&](const Resource& r) {
        return wanted.empty() || wanted.contains(r.as<LaunchTemplateAttributes>()->name);
      });
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node set = addElement(response.root(), "launchTemplates");
  for (const Resource& r : page.items) {
    renderTemplate(addItem(set), r);
  }
  addNextToken(response.root(), page.nextAfter);
  return response.str();
}

// The template a versions or delete request names by LaunchTemplateId or LaunchTemplateName.
aws::ApiResult<Resource> namedTemplate(ActionContext& ctx) {
  LaunchTemplateRef ref{ctx.params.strOr("LaunchTemplateId", ""),
                        ctx.params.strOr("LaunchTemplateName", ""), ""};
  // GUESS: code and wording.
  if (ref.id.empty() && ref.name.empty()) {
    return aws::apiFail("MissingParameter",
                        "The request must contain the parameter LaunchTemplateId or "
                        "LaunchTemplateName");
  }
  auto resolved = resolveLaunchTemplate(ctx.engine.store(), ref);
  if (!resolved) {
    return failWith(resolved);
  }
  auto r = ctx.engine.store().get(kind::kLaunchTemplate, resolved->id);
  if (!r) {
    return aws::apiFail("InvalidLaunchTemplateId.NotFound",
                        fmt::format("The specified launch template, with template ID {}, does "
                                    "not exist.",
                                    resolved->id));
  }
  return std::move(*r);
}

// The versions a DescribeLaunchTemplateVersions request selects, ascending.
aws::ApiResult<std::vector<const LaunchTemplateVersion*>> selectVersions(ActionContext& ctx,
                                                                         const Resource& r) {
  const auto* lt = r.as<LaunchTemplateAttributes>();
  auto requested = ctx.params.strings("LaunchTemplateVersion");
  if (!requested) {
    return failWith(requested);
  }
  auto minVersion = ctx.params.optInteger("MinVersion");
  auto maxVersion = ctx.params.optInteger("MaxVersion");
  if (!minVersion || !maxVersion) {
    return failWith(!minVersion ? minVersion : maxVersion);
  }
  std::set<int64_t> numbers;
  for (const std::string& v : *requested) {
    LaunchTemplateRef ref{r.id, "", v};
    auto resolved = resolveLaunchTemplate(ctx.engine.store(), ref);
    if (!resolved) {
      return failWith(resolved);
    }
    numbers.insert(resolved->version->number);
  }
  std::vector<const LaunchTemplateVersion*> out;
  for (const auto& v : lt->versions) {
    if ((!numbers.empty() && !numbers.contains(v->number)) ||
        (*minVersion && v->number < **minVersion) || (*maxVersion && v->number > **maxVersion)) {
      continue;
    }
    out.push_back(v.get());
  }
  return out;
}

aws::ApiResult<std::string> describeLaunchTemplateVersions(ActionContext& ctx) {
  auto page = parsePageRequest(ctx.params, 1, 200);
  if (!page) {
    return failWith(page);
  }
  auto filters = parseFilters(ctx.params);
  if (!filters) {
    return failWith(filters);
  }
  // Filters on launch template data are not modelled; naming one is an error, not a no-op.
  if (auto ok = checkFilterNames(*filters, {}, false); !ok) {
    return failWith(ok);
  }
  auto r = namedTemplate(ctx);
  if (!r) {
    return failWith(r);
  }
  auto versions = selectVersions(ctx, *r);
  if (!versions) {
    return failWith(versions);
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return failWith(dry);
  }
  // Zero-padded numbers sort as the versions do, so slicePage can page them.
  std::vector<std::string> keys;
  for (const LaunchTemplateVersion* v : *versions) {
    keys.push_back(fmt::format("{:020}", v->number));
  }
  const PageSlice slice = slicePage(keys, page->after, page->limit);
  const auto* lt = r->as<LaunchTemplateAttributes>();
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  pugi::xml_node set = addElement(response.root(), "launchTemplateVersionSet");
  for (size_t i = slice.begin; i < slice.end; ++i) {
    const LaunchTemplateVersion& v = *(*versions)[i];
    pugi::xml_node item = addItem(set);
    addText(item, "launchTemplateId", r->id);
    addText(item, "launchTemplateName", lt->name);
    addInt(item, "versionNumber", v.number);
    if (!v.description.empty()) {
      addText(item, "versionDescription", v.description);
    }
    addTime(item, "createTime", v.created);
    addText(item, "createdBy", v.createdBy);
    addBool(item, "defaultVersion", v.number == lt->defaultVersion);
    renderLaunchTemplateData(addElement(item, "launchTemplateData"), v.data);
  }
  addNextToken(response.root(), slice.nextAfter);
  return response.str();
}

aws::ApiResult<std::string> deleteLaunchTemplate(ActionContext& ctx) {
  auto r = namedTemplate(ctx);
  if (!r) {
    return failWith(r);
  }
  if (auto dry = checkDryRun(ctx.params); !dry) {
    return failWith(dry);
  }
  // EC2 forgets a deleted template at once; removing it also frees its name.
  (void)ctx.engine.store().remove(kind::kLaunchTemplate, r->id);
  aws::xml::Ec2Response response(ctx.action, ctx.requestId);
  renderTemplate(addElement(response.root(), "launchTemplate"), *r, false);
  return response.str();
}

}  // namespace

void addLaunchTemplateActions(ActionTable& table) {
  table["CreateLaunchTemplate"] = {bucket::kMutating, createLaunchTemplate};
  table["DescribeLaunchTemplates"] = {bucket::kDescribe, describeLaunchTemplates};
  table["DescribeLaunchTemplateVersions"] = {bucket::kDescribe, describeLaunchTemplateVersions};
  table["DeleteLaunchTemplate"] = {bucket::kMutating, deleteLaunchTemplate};
}

}  // namespace nodewright::emulators::ec2
