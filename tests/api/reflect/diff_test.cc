#include "api/reflect/diff.h"
#include "api/reflect/redact.h"

#include <algorithm>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/karpenter/ec2nodeclass.h"
#include "api/karpenter/nodepool.h"
#include "api/reflect/operations.h"

namespace nodewright::api {
namespace {

using karpenter::EC2NodeClassSpec;
using karpenter::NetworkInterface;
using karpenter::NodeClaimTemplate;
using karpenter::Taint;
using reflect::Drift;
using reflect::Leaf;
using reflect::TypeKind;
using reflect::TypeOps;

std::vector<std::string> paths(const std::vector<FieldDiff>& diffs) {
  std::vector<std::string> out;
  for (const FieldDiff& d : diffs) {
    out.push_back(d.path);
  }
  return out;
}

std::vector<std::string> described(const std::vector<FieldDiff>& diffs) {
  std::vector<std::string> out;
  for (const FieldDiff& d : diffs) {
    out.push_back(describe(d, 1 << 20));
  }
  return out;
}

template <class T>
T sampled(int variant) {
  T value{};
  reflect::opsFor<T>().sample(&value, nullptr, variant);
  return value;
}

// The first element of a container and its map key ("" for lists and optionals).
std::pair<std::string, const void*> first(const TypeOps& type, const void* value) {
  std::pair<std::string, const void*> out{"", nullptr};
  type.forEach(value, [&](std::string_view key, size_t i, const void* e) {
    if (i == 0) {
      out = {std::string(key), e};
    }
  });
  return out;
}

std::string listMapKey(const reflect::FieldDesc& list, const TypeOps& elem, const void* value) {
  std::string out;
  for (const std::string& name : list.listMapKeys) {
    const reflect::FieldDesc* f = elem.structSchema().find(name);
    out += (out.empty() ? "" : ",") + name + "=" + dumpJson(f->type->encode(f->cget(value)));
  }
  return out;
}

// Where a diff must report a change of `leaf`, with concrete keys: the leaf itself, or the
// set or atomic list above it (reported whole), or both keyed entries of a list-map element
// whose key changed.
struct Expected {
  std::vector<std::string> paths;
  bool atLeaf = true;
};

Expected expectedPaths(const TypeOps& root, const void* base, const void* changed, const Leaf& leaf,
                       const std::string& prefix) {
  const TypeOps* type = &root;
  const reflect::FieldDesc* field = nullptr;
  std::string path = prefix;
  for (const reflect::FieldDesc* step : leaf.steps) {
    if (step != nullptr) {
      path += (path.empty() ? "" : ".") + step->name;
      base = step->cget(base);
      changed = step->cget(changed);
      type = step->type;
      field = step;
      continue;
    }
    auto [key, a] = first(*type, base);
    const void* b = first(*type, changed).second;
    if (type->kind == TypeKind::Map) {
      path += "[" + key + "]";
    } else if (type->kind == TypeKind::Array) {
      if (field->listType != reflect::ListType::Map) {
        return Expected{{path}, false};
      }
      std::string ka = listMapKey(*field, *type->elem(), a);
      std::string kb = listMapKey(*field, *type->elem(), b);
      if (ka != kb) {
        return Expected{{path + "[" + ka + "]", path + "[" + kb + "]"}, false};
      }
      path += "[" + ka + "]";
    }
    base = a;
    changed = b;
    type = type->elem();
  }
  return Expected{{path}, true};
}

// Mutates every leaf of a fully sampled T in turn: a static leaf must give a diff naming that
// leaf and a new hash, any other leaf neither. A snapshot of the original decodes back to the
// same diffs.
template <class T>
void checkEveryLeaf(const std::string& prefix) {
  const TypeOps& ops = reflect::opsFor<T>();
  const T base = sampled<T>(0);
  const Json snapshot = staticJson(base);
  T decoded{};
  FieldErrors errors = decodeJson(snapshot, decoded, DecodeOptions{.strict = false});
  ASSERT_TRUE(errors.empty()) << errors.front().toString();
  EXPECT_EQ(hashOf(decoded), hashOf(base));
  EXPECT_EQ(staticJson(decoded), snapshot);
  EXPECT_TRUE(staticDiff(base, base, prefix).empty());

  size_t statics = 0;
  size_t others = 0;
  for (const Leaf& leaf : reflect::leaves(ops)) {
    T changed = base;
    void* value = reflect::resolveLeaf(ops, &changed, leaf);
    ASSERT_NE(value, nullptr) << leaf.path;
    const Json before = leaf.type->encode(value);
    leaf.type->sample(value, leaf.field, 1);
    if (leaf.type->encode(value) == before) {
      continue;  // a single-valued enum: no other value exists
    }
    std::vector<FieldDiff> diffs = staticDiff(base, changed, prefix);
    EXPECT_EQ(described(staticDiff(decoded, changed, prefix)), described(diffs)) << leaf.path;
    if (leaf.drift != Drift::Static) {
      ++others;
      EXPECT_EQ(described(diffs), std::vector<std::string>{}) << leaf.path;
      EXPECT_EQ(hashOf(changed), hashOf(base)) << leaf.path;
      continue;
    }
    ++statics;
    EXPECT_NE(hashOf(changed), hashOf(base)) << leaf.path;
    Expected expected = expectedPaths(ops, &base, &changed, leaf, prefix);
    std::vector<std::string> got = paths(diffs);
    std::sort(got.begin(), got.end());
    std::sort(expected.paths.begin(), expected.paths.end());
    ASSERT_EQ(got, expected.paths) << leaf.path;
    if (expected.atLeaf) {
      // A struct field that became empty is absent; an optional or map value is not.
      const bool absent = leaf.steps.back() != nullptr && leaf.type->isEmpty(value);
      // A sensitive field (userData) shows its stand-in, never its value.
      auto shown = [&](const Json& v) {
        return leaf.field->sensitive && v.is_string()
                   ? Json(reflect::redacted(v.get<std::string>()))
                   : v;
      };
      EXPECT_EQ(diffs[0].from, shown(before)) << leaf.path;
      EXPECT_EQ(diffs[0].to, absent ? Json() : shown(leaf.type->encode(value))) << leaf.path;
    } else {
      EXPECT_NE(diffs[0].from, diffs[0].to) << leaf.path;
    }
  }
  EXPECT_GT(statics, 10u);
  EXPECT_GT(others, 0u);
}

TEST(StaticDiffTest, NamesEveryStaticLeafOfTheNodeClaimTemplate) {
  checkEveryLeaf<NodeClaimTemplate>("spec.template");
}

TEST(StaticDiffTest, NamesEveryStaticLeafOfTheNodeClassSpec) {
  checkEveryLeaf<EC2NodeClassSpec>("spec");
}

NetworkInterface nic(int32_t card, int32_t device, std::string description) {
  NetworkInterface n;
  n.networkCardIndex = card;
  n.deviceIndex = device;
  n.description = std::move(description);
  n.interfaceType = "interface";
  n.deleteOnTermination = true;
  return n;
}

EC2NodeClassSpec nodeClass() {
  EC2NodeClassSpec s;
  s.amiFamily = "AL2023";
  s.role = "KarpenterNodeRole";
  s.networkInterfaces = {nic(0, 0, "primary"), nic(0, 1, "secondary"), nic(1, 0, "efa")};
  s.networkInterfaces[2].interfaceType = "efa";
  return s;
}

TEST(StaticDiffTest, IgnoresTheOrderOfNetworkInterfaces) {
  EC2NodeClassSpec a = nodeClass();
  EC2NodeClassSpec b = a;
  std::reverse(b.networkInterfaces.begin(), b.networkInterfaces.end());
  EXPECT_EQ(described(staticDiff(a, b, "spec")), std::vector<std::string>{});
  EXPECT_EQ(hashOf(a), hashOf(b));
  EXPECT_EQ(staticJson(a), staticJson(b));
}

TEST(StaticDiffTest, IgnoresDeleteOnTermination) {
  EC2NodeClassSpec a = nodeClass();
  EC2NodeClassSpec b = a;
  b.networkInterfaces[1].deleteOnTermination = false;
  b.networkInterfaces[2].deleteOnTermination.reset();
  EXPECT_EQ(described(staticDiff(a, b, "spec")), std::vector<std::string>{});
  EXPECT_EQ(hashOf(a), hashOf(b));
  EXPECT_EQ(dumpJson(staticJson(a)).find("deleteOnTermination"), std::string::npos);
}

TEST(StaticDiffTest, NamesAChangedInterfaceByItsKeys) {
  EC2NodeClassSpec a = nodeClass();
  EC2NodeClassSpec b = a;
  b.networkInterfaces[1].description = "storage";
  std::reverse(b.networkInterfaces.begin(), b.networkInterfaces.end());
  std::vector<FieldDiff> diffs = staticDiff(a, b, "spec");
  EXPECT_EQ(described(diffs),
            std::vector<std::string>{"spec.networkInterfaces[networkCardIndex=0,deviceIndex=1]"
                                     ".description: \"secondary\" -> \"storage\""});
}

TEST(StaticDiffTest, ReportsAMovedInterfaceAsRemovedAndAdded) {
  EC2NodeClassSpec a = nodeClass();
  EC2NodeClassSpec b = a;
  b.networkInterfaces[1].deviceIndex = 2;
  b.networkInterfaces[1].deleteOnTermination = false;
  EXPECT_EQ(described(staticDiff(a, b, "spec")),
            (std::vector<std::string>{
                "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1]: "
                "{\"description\":\"secondary\",\"deviceIndex\":1,\"interfaceType\":\"interface\","
                "\"networkCardIndex\":0} -> <absent>",
                "spec.networkInterfaces[networkCardIndex=0,deviceIndex=2]: <absent> -> "
                "{\"description\":\"secondary\",\"deviceIndex\":2,\"interfaceType\":\"interface\","
                "\"networkCardIndex\":0}",
            }));
}

TEST(StaticDiffTest, ReportsStaticJsonInCanonicalOrder) {
  EC2NodeClassSpec a = nodeClass();
  std::swap(a.networkInterfaces[0], a.networkInterfaces[2]);
  Json nics = staticJson(a)["networkInterfaces"];
  ASSERT_EQ(nics.size(), 3u);
  EXPECT_EQ(nics[0]["description"], "primary");
  EXPECT_EQ(nics[1]["description"], "secondary");
  EXPECT_EQ(nics[2]["description"], "efa");
  EXPECT_FALSE(staticJson(a).contains("subnetSelectorTerms"));
}

NodeClaimTemplate nodeTemplate() {
  NodeClaimTemplate t;
  t.metadata.labels = {{"app", "web"}};
  t.spec.nodeClassRef.group = "karpenter.k8s.aws";
  t.spec.nodeClassRef.kind = "EC2NodeClass";
  t.spec.nodeClassRef.name = "default";
  Taint gpu;
  gpu.key = "gpu";
  gpu.effect = "NoSchedule";
  Taint spot;
  spot.key = "spot";
  spot.value = "true";
  spot.effect = "NoExecute";
  t.spec.taints = {gpu, spot};
  return t;
}

TEST(StaticDiffTest, ReportsLabelsPerKey) {
  NodeClaimTemplate a = nodeTemplate();
  NodeClaimTemplate b = a;
  b.metadata.labels["team"] = "ml";
  EXPECT_EQ(described(staticDiff(a, b, "spec.template")),
            std::vector<std::string>{"spec.template.metadata.labels[team]: <absent> -> \"ml\""});
  EXPECT_EQ(described(staticDiff(b, a, "spec.template")),
            std::vector<std::string>{"spec.template.metadata.labels[team]: \"ml\" -> <absent>"});
  b.metadata.labels.erase("app");
  EXPECT_EQ(described(staticDiff(a, b, "spec.template")),
            (std::vector<std::string>{"spec.template.metadata.labels[app]: \"web\" -> <absent>",
                                      "spec.template.metadata.labels[team]: <absent> -> \"ml\""}));
  b.metadata.labels.clear();
  EXPECT_EQ(described(staticDiff(a, b, "spec.template")),
            std::vector<std::string>{"spec.template.metadata.labels[app]: \"web\" -> <absent>"});
}

TEST(StaticDiffTest, ComparesTaintsAsASet) {
  NodeClaimTemplate a = nodeTemplate();
  NodeClaimTemplate b = a;
  std::swap(b.spec.taints[0], b.spec.taints[1]);
  EXPECT_EQ(described(staticDiff(a, b, "spec.template")), std::vector<std::string>{});
  b.spec.taints[0].value = "false";
  EXPECT_EQ(
      described(staticDiff(a, b, "spec.template")),
      std::vector<std::string>{"spec.template.spec.taints: "
                               "[{\"key\":\"gpu\",\"effect\":\"NoSchedule\"},"
                               "{\"key\":\"spot\",\"value\":\"true\",\"effect\":\"NoExecute\"}] -> "
                               "[{\"key\":\"gpu\",\"effect\":\"NoSchedule\"},"
                               "{\"key\":\"spot\",\"value\":\"false\",\"effect\":\"NoExecute\"}]"});
  // A duplicate counts: a set list is a multiset, as its hash.
  NodeClaimTemplate c = a;
  c.spec.taints.push_back(c.spec.taints[0]);
  EXPECT_EQ(paths(staticDiff(a, c)), std::vector<std::string>{"spec.taints"});
}

TEST(StaticDiffTest, IgnoresDynamicRequirements) {
  NodeClaimTemplate a = nodeTemplate();
  NodeClaimTemplate b = a;
  b.spec.requirements.resize(1);
  b.spec.requirements[0].key = "karpenter.sh/capacity-type";
  b.spec.requirements[0].operator_ = "In";
  b.spec.requirements[0].values = {"spot"};
  EXPECT_TRUE(staticDiff(a, b).empty());
  EXPECT_FALSE(staticJson(b)["spec"].contains("requirements"));
}

TEST(StaticDiffTest, ShortensLongStrings) {
  EC2NodeClassSpec a = nodeClass();
  EC2NodeClassSpec b = a;
  std::string script = "#!/bin/bash\n";
  script.resize(4096, 'x');
  b.userData = script;
  b.context = script;  // a string that is not sensitive, shown shortened
  std::vector<FieldDiff> diffs = staticDiff(a, b, "spec");
  ASSERT_EQ(diffs.size(), 2u);
  EXPECT_EQ(diffs[0].path, "spec.userData");
  // userData may hold secrets: only its stand-in shows, never the script.
  EXPECT_EQ(diffs[0].to, reflect::redacted(script));
  EXPECT_EQ(describe(diffs[0]).find("bash"), std::string::npos);
  EXPECT_EQ(diffs[1].to, script);
  EXPECT_EQ(describe(diffs[1], 11), "spec.context: <absent> -> \"#!/bin/bash...\" (4096 chars)");
  EXPECT_EQ(describe(diffs[1]), "spec.context: <absent> -> " +
                                    dumpJson(Json(script.substr(0, 120) + "...")) +
                                    " (4096 chars)");
  // Inside a whole element the string stays JSON.
  FieldDiff nested;
  nested.path = "spec.networkInterfaces[networkCardIndex=0,deviceIndex=1]";
  nested.to = Json{{"description", "é" + std::string(300, 'd')}};
  EXPECT_EQ(describe(nested, 3),
            nested.path + ": <absent> -> {\"description\":\"édd... (301 chars)\"}");
  // Short values are left alone.
  FieldDiff small;
  small.path = "p";
  small.from = "ab";
  small.to = 1;
  EXPECT_EQ(describe(small, 2), "p: \"ab\" -> 1");
}

}  // namespace
}  // namespace nodewright::api
