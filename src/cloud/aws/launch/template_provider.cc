#include "cloud/aws/launch/template_provider.h"

#include <algorithm>
#include <utility>

#include "aws/error_class.h"
#include "core/log.h"

namespace nodewright::cloud::aws {
namespace {

constexpr std::string_view kNameNotFound = "InvalidLaunchTemplateName.NotFoundException";
constexpr std::string_view kIdNotFound = "InvalidLaunchTemplateId.NotFound";
constexpr std::string_view kNameTaken = "InvalidLaunchTemplateName.AlreadyExistsException";

bool gone(const sdk::ApiError& e) {
  return e.code == kNameNotFound || e.code == kIdNotFound;
}

core::Error wrapped(const sdk::ApiError& e, const std::string& context) {
  return sdk::toCoreError(e).wrap(context);
}

}  // namespace

LaunchTemplateProvider::LaunchTemplateProvider(sdk::Ec2Client& ec2, const core::Clock& clock,
                                               LaunchTemplateProviderOptions options)
    : ec2_(ec2), clock_(clock), options_(std::move(options)) {}

core::Result<std::string> LaunchTemplateProvider::ensure(
    const api::karpenter::EC2NodeClass& nodeClass, const ResolvedNodeClass& resolved,
    const LaunchSettings& settings) {
  auto spec = buildTemplate(options_.cluster, nodeClass, resolved, settings);
  if (!spec) {
    return core::fail(spec.error());
  }
  return ensure(*spec);
}

core::Result<std::string> LaunchTemplateProvider::ensure(const TemplateSpec& spec) {
  if (cached(spec.name)) {
    return spec.name;
  }
  auto found = ec2_.describeLaunchTemplates({spec.name});
  if (found && !found->empty()) {
    remember(spec.name);
    return spec.name;
  }
  if (!found && !gone(found.error())) {
    return core::fail(wrapped(found.error(), "describing launch template " + spec.name));
  }
  auto created = ec2_.createLaunchTemplate(spec.name, spec.data, spec.tags);
  if (!created && created.error().code != kNameTaken) {
    return core::fail(wrapped(created.error(), "creating launch template " + spec.name));
  }
  if (created) {
    core::logInfo("aws: created launch template",
                  {{"name", spec.name},
                   {"id", created->launchTemplateId},
                   {"node-class", spec.tags.count(kTagNodeClass) != 0 ? spec.tags.at(kTagNodeClass)
                                                                      : std::string()}});
  }
  remember(spec.name);
  return spec.name;
}

core::Result<std::vector<std::string>> LaunchTemplateProvider::cleanup(
    const std::string& nodeClassName, const std::set<std::string>& keep) {
  const std::vector<sdk::Filter> filters = {
      {std::string("tag:") + kTagCluster, {options_.cluster.name}},
      {std::string("tag:") + kTagNodeClass, {nodeClassName}},
  };
  auto templates = ec2_.describeLaunchTemplates({}, filters);
  if (!templates) {
    return core::fail(wrapped(templates.error(), "listing launch templates of " + nodeClassName));
  }
  std::vector<std::string> deleted;
  for (const sdk::LaunchTemplate& t : *templates) {
    // The filters are EC2's; the tags are checked again so a peer that ignores a filter name
    // cannot make us delete another owner's template.
    auto owner = t.tags.find(kTagNodeClass);
    auto cluster = t.tags.find(kTagCluster);
    if (keep.contains(t.launchTemplateName) || owner == t.tags.end() ||
        owner->second != nodeClassName || cluster == t.tags.end() ||
        cluster->second != options_.cluster.name) {
      continue;
    }
    invalidate(t.launchTemplateName);
    auto ok = ec2_.deleteLaunchTemplate(t.launchTemplateName);
    if (!ok && !gone(ok.error())) {
      return core::fail(wrapped(ok.error(), "deleting launch template " + t.launchTemplateName));
    }
    if (ok) {
      core::logInfo("aws: deleted launch template",
                    {{"name", t.launchTemplateName}, {"node-class", nodeClassName}});
      deleted.push_back(t.launchTemplateName);
    }
  }
  std::sort(deleted.begin(), deleted.end());
  return deleted;
}

core::Result<std::vector<std::string>> LaunchTemplateProvider::deleteAll(
    const std::string& nodeClassName) {
  return cleanup(nodeClassName, {});
}

void LaunchTemplateProvider::invalidate(const std::string& name) {
  std::lock_guard lock(mu_);
  known_.erase(name);
}

bool LaunchTemplateProvider::cached(const std::string& name) const {
  std::lock_guard lock(mu_);
  auto it = known_.find(name);
  return it != known_.end() && clock_.steadyNow() < it->second;
}

void LaunchTemplateProvider::remember(const std::string& name) {
  std::lock_guard lock(mu_);
  const auto now = clock_.steadyNow();
  std::erase_if(known_, [&](const auto& entry) { return entry.second <= now; });
  known_[name] = now + options_.cacheTtl;
}

}  // namespace nodewright::cloud::aws
