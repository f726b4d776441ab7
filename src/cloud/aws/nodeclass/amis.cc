#include <algorithm>
#include <map>
#include <optional>

#include <fmt/format.h>

#include "aws/error_class.h"
#include "cloud/aws/nodeclass/aliases.h"
#include "cloud/aws/nodeclass/lookup.h"

namespace nodewright::cloud::aws::nodeclass {
namespace {

using api::karpenter::AMISelectorTerm;
using api::karpenter::NodeSelectorRequirement;

// One DescribeImages call.
struct ImageQuery {
  std::vector<sdk::Filter> filters;
  std::vector<std::string> owners;
  // What SSM told about an image that EC2 does not: the variants an alias's parameter names,
  // and the Windows Server build of a Windows alias's image.
  std::map<std::string, std::vector<Variant>> variants;
  std::map<std::string, std::string> windowsBuilds;
};

// The image id an SSM parameter holds; nullopt when there is no such parameter.
core::Result<std::optional<std::string>> readParameter(sdk::SsmClient& ssm,
                                                       const std::string& name) {
  auto value = ssm.getParameter(name);
  if (value) {
    return std::optional<std::string>(*value);
  }
  if (sdk::classify(value.error()) == sdk::ErrorClass::NotFound) {
    return std::optional<std::string>();
  }
  return core::fail(
      sdk::toCoreError(value.error()).wrap(fmt::format("reading SSM parameter {}", name)));
}

// The query an alias term makes, or nullopt (with `detail` set, and `reason` when Karpenter
// refuses the alias outright) when it names no image.
core::Result<std::optional<ImageQuery>> aliasQuery(sdk::SsmClient& ssm, const std::string& text,
                                                   const std::string& kubernetesVersion,
                                                   std::string& detail, std::string& reason) {
  auto alias = parseAlias(text);
  if (auto why = alias ? unsupportedAlias(*alias, kubernetesVersion) : std::nullopt) {
    detail = std::move(*why);
    reason = "UnsupportedAlias";
    return std::optional<ImageQuery>();
  }
  auto parameters = alias ? aliasParameters(*alias, kubernetesVersion) : std::nullopt;
  if (!parameters) {
    detail = fmt::format("alias {} is not a supported family@version", text);
    return std::optional<ImageQuery>();
  }
  ImageQuery query;
  for (const AliasParameter& parameter : *parameters) {
    auto id = readParameter(ssm, parameter.name);
    if (!id) {
      return core::fail(id.error());
    }
    if (*id) {
      auto& variants = query.variants[**id];
      variants.insert(variants.end(), parameter.variants.begin(), parameter.variants.end());
      if (!parameter.windowsBuild.empty()) {
        query.windowsBuilds[**id] = parameter.windowsBuild;
      }
    }
  }
  if (query.variants.empty()) {
    detail = fmt::format("no SSM parameter of alias {} exists for Kubernetes {}", text,
                         kubernetesVersion);
    return std::optional<ImageQuery>();
  }
  sdk::Filter ids{"image-id", {}};
  for (const auto& [id, variants] : query.variants) {
    ids.values.push_back(id);
  }
  query.filters.push_back(std::move(ids));
  return std::optional<ImageQuery>(std::move(query));
}

// Karpenter's queries for the terms; ids (named or read from SSM) go in one query at the end.
core::Result<std::vector<ImageQuery>> queriesFor(sdk::SsmClient& ssm,
                                                 const std::vector<AMISelectorTerm>& terms,
                                                 const std::string& kubernetesVersion,
                                                 std::string& detail, std::string& reason) {
  std::vector<ImageQuery> queries;
  sdk::Filter ids{"image-id", {}};
  for (const AMISelectorTerm& term : terms) {
    if (!term.alias.empty()) {
      auto query = aliasQuery(ssm, term.alias, kubernetesVersion, detail, reason);
      if (!query) {
        return core::fail(query.error());
      }
      if (*query) {
        queries.push_back(std::move(**query));
      }
    } else if (!term.id.empty()) {
      ids.values.push_back(term.id);
    } else if (!term.ssmParameter.empty()) {
      auto id = readParameter(ssm, term.ssmParameter);
      if (!id) {
        return core::fail(id.error());
      }
      if (*id) {
        ids.values.push_back(**id);
      } else {
        detail = fmt::format("SSM parameter {} does not exist", term.ssmParameter);
      }
    } else {
      ImageQuery query;
      if (!term.owner.empty()) {
        query.owners = {term.owner};
      } else if (!term.name.empty()) {
        // Only the account's and Amazon's images unless asked: a name alone would otherwise
        // match any public image of that name.
        query.owners = {"self", "amazon"};
      }
      if (!term.name.empty()) {
        query.filters.push_back({"name", {term.name}});
      }
      addTagFilters(term.tags, query.filters);
      if (!query.filters.empty() || !query.owners.empty()) {
        queries.push_back(std::move(query));
      }
    }
  }
  if (!ids.values.empty()) {
    queries.push_back({{std::move(ids)}, {}, {}, {}});
  }
  return queries;
}

std::optional<std::string> kubernetesArch(const std::string& ec2Arch) {
  if (ec2Arch == "x86_64") {
    return "amd64";
  }
  if (ec2Arch == "arm64") {
    return "arm64";
  }
  return std::nullopt;
}

core::TimePoint parseTime(const std::string& text) {
  auto t = core::Time::parse(text);
  return t ? t->point() : core::TimePoint{};
}

std::string requirementsKey(const std::vector<NodeSelectorRequirement>& requirements) {
  std::string key;
  for (const auto& r : requirements) {
    key += fmt::format("{}|{}|{};", r.key, r.operator_, fmt::join(r.values, ","));
  }
  return key;
}

// Whether `candidate` should replace `current` for their requirement set.
bool better(const ResolvedImage& candidate, const ResolvedImage& current) {
  if (candidate.deprecated != current.deprecated) {
    return !candidate.deprecated;
  }
  const auto a = parseTime(candidate.creationDate);
  const auto b = parseTime(current.creationDate);
  if (a != b) {
    return a > b;
  }
  return candidate.id < current.id;
}

}  // namespace

core::Result<ImageSearch> findImages(sdk::Ec2Client& ec2, sdk::SsmClient& ssm,
                                     const std::vector<AMISelectorTerm>& terms,
                                     const std::string& kubernetesVersion, core::TimePoint now) {
  ImageSearch out;
  auto queries = queriesFor(ssm, terms, kubernetesVersion, out.detail, out.reason);
  if (!queries) {
    return core::fail(queries.error());
  }
  std::map<std::string, ResolvedImage> best;  // requirements key -> image
  for (const ImageQuery& query : *queries) {
    auto found = ec2.describeImages(query.filters, {}, query.owners);
    if (!found) {
      return core::fail(sdk::toCoreError(found.error()).wrap("describing images"));
    }
    for (const sdk::Image& image : *found) {
      auto arch = kubernetesArch(image.architecture);
      if (!arch || (!image.state.empty() && image.state != "available")) {
        continue;
      }
      std::vector<std::optional<Variant>> variants = {std::nullopt};
      if (auto it = query.variants.find(image.imageId);
          it != query.variants.end() && !it->second.empty()) {
        variants.assign(it->second.begin(), it->second.end());
      }
      std::string windowsBuild;
      if (auto it = query.windowsBuilds.find(image.imageId); it != query.windowsBuilds.end()) {
        windowsBuild = it->second;
      }
      for (const auto& variant : variants) {
        ResolvedImage candidate{
            image.imageId,
            image.name,
            *arch,
            variantRequirements(variant, *arch, windowsBuild),
            image.creationDate,
            !image.deprecationTime.empty() && parseTime(image.deprecationTime) <= now};
        const std::string key = requirementsKey(candidate.requirements);
        auto it = best.find(key);
        if (it == best.end() || better(candidate, it->second)) {
          best.insert_or_assign(key, std::move(candidate));
        }
      }
    }
  }
  for (auto& [key, image] : best) {
    out.images.push_back(std::move(image));
  }
  std::stable_sort(out.images.begin(), out.images.end(),
                   [](const ResolvedImage& a, const ResolvedImage& b) {
                     const auto ta = parseTime(a.creationDate);
                     const auto tb = parseTime(b.creationDate);
                     if (ta != tb) {
                       return ta > tb;
                     }
                     return a.id < b.id;
                   });
  if (!out.images.empty()) {
    out.detail.clear();
    out.reason.clear();
  }
  return out;
}

std::string familyOf(const api::karpenter::EC2NodeClassSpec& spec) {
  if (spec.amiFamily == kFamilyCustom) {
    return kFamilyCustom;
  }
  for (const AMISelectorTerm& term : spec.amiSelectorTerms) {
    if (auto alias = parseAlias(term.alias)) {
      if (alias->family == "al2023") {
        return kFamilyAL2023;
      }
      if (alias->family == "al2") {
        return kFamilyAL2;
      }
      if (alias->family == "bottlerocket") {
        return kFamilyBottlerocket;
      }
      if (alias->family == "windows2019") {
        return "Windows2019";
      }
      if (alias->family == "windows2022") {
        return "Windows2022";
      }
      if (alias->family == "windows2025") {
        return "Windows2025";
      }
    }
  }
  return spec.amiFamily.empty() ? std::string(kFamilyAL2023) : spec.amiFamily;
}

}  // namespace nodewright::cloud::aws::nodeclass
