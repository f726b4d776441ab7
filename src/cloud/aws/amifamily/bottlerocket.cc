// Bottlerocket: TOML settings. The user's document is kept, and ours are laid over its
// settings.kubernetes: cluster identity, kubelet settings, labels (merged, ours win) and taints
// (ours replace the user's: the scheduler planned around the NodeClaim's taints, no others).
#include <charconv>
#include <map>
#include <sstream>
#include <string_view>

#include <fmt/format.h>
#include <toml.hpp>

#include "cloud/aws/amifamily/families.h"

namespace nodewright::cloud::aws::amifamily {
namespace {

// Tables as std::map, so the output is the same for the same settings.
using Toml = toml::basic_value<toml::discard_comments, std::map, std::vector>;

core::Result<Toml> parseUserToml(const std::optional<std::string>& data) {
  if (!data) {
    return Toml(Toml::table_type{});
  }
  std::istringstream in(*data);
  try {
    Toml doc = toml::parse<toml::discard_comments, std::map, std::vector>(in, "spec.userData");
    return doc;
  } catch (const toml::exception& e) {
    // toml11's message quotes the offending line: user data stays out of errors.
    return core::fail(userDataError(fmt::format("invalid TOML on line {}", e.location().line())));
  } catch (const std::exception&) {
    return core::fail(userDataError("invalid TOML"));
  }
}

// doc[key] as a table, created when absent; Invalid naming `path` when it is something else.
core::Result<Toml*> table(Toml& doc, const std::string& key, const std::string& path) {
  Toml::table_type& t = doc.as_table();
  auto it = t.find(key);
  if (it == t.end()) {
    it = t.emplace(key, Toml::table_type{}).first;
  }
  if (!it->second.is_table()) {
    return core::fail(userDataError(path + " must be a table"));
  }
  return &it->second;
}

template <class Map>
Toml stringTable(const Map& values) {
  Toml::table_type t;
  for (const auto& [key, value] : values) {
    t.emplace(key, value);
  }
  return Toml(std::move(t));
}

// The version in a Bottlerocket image name ("bottlerocket-aws-k8s-1.33-x86_64-v1.46.0-431fe75a"
// -> "v1.46.0"): its first dash-separated part that starts with 'v' and has a dot.
std::string versionInName(std::string_view name) {
  while (!name.empty()) {
    const size_t dash = name.find('-');
    const std::string_view part = name.substr(0, dash);
    if (part.starts_with('v') && part.find('.') != std::string_view::npos) {
      return std::string(part);
    }
    if (dash == std::string_view::npos) {
      break;
    }
    name.remove_prefix(dash + 1);
  }
  return "";
}

std::optional<int> number(std::string_view text) {
  int value = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc() || end != text.data() + text.size()) {
    return std::nullopt;
  }
  return value;
}

// With instanceStorePolicy RAID0, Karpenter's bootstrap command that puts the instance stores
// in one array and binds the kubelet's, containerd's and the pods' log directories onto it
// (named explicitly before Bottlerocket v1.46.0, whose bind knows them). It replaces a user
// command of the same name and keeps the others.
core::Status mountInstanceStorage(Toml& settings, const BootstrapOptions& o) {
  auto commands = table(settings, "bootstrap-commands", "settings.bootstrap-commands");
  if (!commands) {
    return core::fail(commands.error());
  }
  Toml::array_type bind = {Toml("apiclient"), Toml("ephemeral-storage"), Toml("bind")};
  if (!supportsDefaultBind(o.bottlerocketVersion)) {
    for (const char* arg : {"--dirs", "/var/lib/containerd", "/var/lib/kubelet", "/var/log/pods"}) {
      bind.emplace_back(arg);
    }
  }
  Toml::array_type init = {Toml("apiclient"), Toml("ephemeral-storage"), Toml("init")};
  Toml::table_type command;
  command.emplace("commands", Toml::array_type{Toml(std::move(init)), Toml(std::move(bind))});
  command.emplace("essential", true);
  command.emplace("mode", "always");
  (*commands)->as_table()["000-mount-instance-storage"] = Toml(std::move(command));
  return core::ok();
}

core::Status overlay(Toml& k, const BootstrapOptions& o) {
  Toml::table_type& s = k.as_table();
  s["cluster-name"] = o.cluster.name;
  s["api-server"] = o.cluster.endpoint;
  if (!o.cluster.caBundle.empty()) {
    s["cluster-certificate"] = o.cluster.caBundle;
  }
  if (auto pods = effectiveMaxPods(o)) {
    s["max-pods"] = static_cast<toml::integer>(*pods);
  }
  if (o.kubelet) {
    const api::karpenter::KubeletConfiguration& kc = *o.kubelet;
    if (!kc.clusterDNS.empty()) {
      s["cluster-dns-ip"] = kc.clusterDNS.front();
    }
    if (!kc.kubeReserved.empty()) {
      s["kube-reserved"] = stringTable(kc.kubeReserved);
    }
    if (!kc.systemReserved.empty()) {
      s["system-reserved"] = stringTable(kc.systemReserved);
    }
    if (!kc.evictionHard.empty()) {
      s["eviction-hard"] = stringTable(kc.evictionHard);
    }
    if (!kc.evictionSoft.empty()) {
      s["eviction-soft"] = stringTable(kc.evictionSoft);
    }
    if (!kc.evictionSoftGracePeriod.empty()) {
      std::map<std::string, std::string> periods;  // Go's Duration.String(), as Karpenter writes
      for (const auto& [signal, period] : kc.evictionSoftGracePeriod) {
        periods.emplace(signal, period.toString());
      }
      s["eviction-soft-grace-period"] = stringTable(periods);
    }
    if (kc.evictionMaxPodGracePeriod) {
      s["eviction-max-pod-grace-period"] =
          static_cast<toml::integer>(*kc.evictionMaxPodGracePeriod);
    }
    // Strings, not integers: Bottlerocket's settings model and Karpenter both write them so.
    if (kc.imageGCHighThresholdPercent) {
      s["image-gc-high-threshold-percent"] = std::to_string(*kc.imageGCHighThresholdPercent);
    }
    if (kc.imageGCLowThresholdPercent) {
      s["image-gc-low-threshold-percent"] = std::to_string(*kc.imageGCLowThresholdPercent);
    }
    if (kc.cpuCFSQuota) {
      s["cpu-cfs-quota-enforced"] = *kc.cpuCFSQuota;
    }
    // Bottlerocket has no setting for podsPerCore; Karpenter v1.14 leaves it out too.
  }
  auto labels = table(k, "node-labels", "settings.kubernetes.node-labels");
  if (!labels) {
    return core::fail(labels.error());
  }
  for (const auto& [key, value] : o.labels) {
    (*labels)->as_table()[key] = value;
  }
  if ((*labels)->as_table().empty()) {
    s.erase("node-labels");
  }
  s.erase("node-taints");
  std::map<std::string, Toml::array_type> taints;
  for (const api::karpenter::Taint& t : o.taints) {
    taints[t.key].push_back(Toml(t.value + ":" + t.effect));
  }
  if (!taints.empty()) {
    Toml::table_type t;
    for (auto& [key, values] : taints) {
      t.emplace(key, std::move(values));
    }
    s["node-taints"] = std::move(t);
  }
  return core::ok();
}

}  // namespace

core::Result<std::string> bottlerocketUserData(const BootstrapOptions& options) {
  auto doc = parseUserToml(options.customUserData);
  if (!doc) {
    return core::fail(doc.error());
  }
  auto settings = table(*doc, "settings", "settings");
  if (!settings) {
    return core::fail(settings.error());
  }
  auto kubernetes = table(**settings, "kubernetes", "settings.kubernetes");
  if (!kubernetes) {
    return core::fail(kubernetes.error());
  }
  if (auto ok = overlay(**kubernetes, options); !ok) {
    return core::fail(ok.error());
  }
  if (options.raid0) {
    if (auto ok = mountInstanceStorage(**settings, options); !ok) {
      return core::fail(ok.error());
    }
  }
  // Width 0: every table as its own [section], as Bottlerocket's documentation writes them.
  std::string text = toml::format(*doc, 0);
  const size_t begin = text.find_first_not_of('\n');
  const size_t end = text.find_last_not_of('\n');
  return begin == std::string::npos ? std::string() : text.substr(begin, end - begin + 1) + "\n";
}

}  // namespace nodewright::cloud::aws::amifamily

namespace nodewright::cloud::aws {

std::string bottlerocketVersion(
    const std::vector<api::karpenter::AMISelectorTerm>& terms,
    const std::vector<std::pair<std::string, std::string>>& imageNames) {
  for (const auto& term : terms) {
    const size_t at = term.alias.find('@');
    if (at != std::string::npos && term.alias.find('@', at + 1) == std::string::npos &&
        at + 1 < term.alias.size()) {
      return term.alias.substr(at + 1);
    }
  }
  for (const auto& term : terms) {
    if (auto version = amifamily::versionInName(term.name); !version.empty()) {
      return version;
    }
  }
  auto bottlerocketImage = [](const std::string& name) {
    return name.find("bottlerocket") != std::string::npos;
  };
  for (const auto& term : terms) {
    for (const auto& [id, name] : imageNames) {
      if (!term.id.empty() && id == term.id && bottlerocketImage(name)) {
        if (auto version = amifamily::versionInName(name); !version.empty()) {
          return version;
        }
      }
    }
  }
  for (const auto& [id, name] : imageNames) {
    if (bottlerocketImage(name)) {
      if (auto version = amifamily::versionInName(name); !version.empty()) {
        return version;
      }
    }
  }
  return "";
}

bool supportsDefaultBind(std::string_view version) {
  if (version == "latest") {
    return true;
  }
  while (version.starts_with('v')) {
    version.remove_prefix(1);
  }
  const size_t first = version.find('.');
  if (first == std::string_view::npos) {
    return false;
  }
  const size_t second = version.find('.', first + 1);
  if (second == std::string_view::npos) {
    return false;
  }
  const auto major = amifamily::number(version.substr(0, first));
  const auto minor = amifamily::number(version.substr(first + 1, second - first - 1));
  if (!major || !minor) {
    return false;
  }
  return *major > 1 || (*major == 1 && *minor >= 46);
}

}  // namespace nodewright::cloud::aws
