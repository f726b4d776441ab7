// Properties every registered kind must have, driven from the registry and the field metadata so
// that a kind or field added later is covered without touching this file.
#include <gtest/gtest.h>

#include "api/codec.h"
#include "api/object.h"
#include "api/reflect/operations.h"

namespace nodewright::api {
namespace {

std::vector<const KindInfo*> allKinds() {
  std::vector<const KindInfo*> out;
  for (const KindInfo& k : builtinRegistry().kinds()) {
    out.push_back(&k);
  }
  return out;
}

std::vector<const KindInfo*> kindsWithSpec() {
  std::vector<const KindInfo*> out;
  for (const KindInfo* k : allKinds()) {
    if (k->type->structSchema().find("spec") != nullptr) {
      out.push_back(k);
    }
  }
  return out;
}

std::string kindName(const ::testing::TestParamInfo<const KindInfo*>& info) {
  std::string name = info.param->group + "_" + info.param->version + "_" + info.param->kind;
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) {
      c = '_';
    }
  }
  return name;
}

class KindPropertiesTest : public ::testing::TestWithParam<const KindInfo*> {
 protected:
  // A new object of the kind with every field populated (variant picks the values).
  std::shared_ptr<void> populated(int variant) const {
    const KindInfo& kind = *GetParam();
    std::shared_ptr<void> obj = kind.make();
    kind.type->sample(obj.get(), nullptr, variant);
    return obj;
  }
};

TEST_P(KindPropertiesTest, DecodeEncodeDecodeIsIdentity) {
  const KindInfo& kind = *GetParam();
  for (int variant : {0, 1}) {
    std::shared_ptr<void> original = populated(variant);
    Json encoded = kind.type->encode(original.get());
    std::shared_ptr<void> decoded = kind.make();
    FieldErrors errors;
    DecodeOptions options;
    reflect::DecodeContext ctx{options, errors};
    kind.type->decode(encoded, decoded.get(), reflect::PathNode{}, ctx);
    EXPECT_TRUE(errors.empty()) << errors.front().toString();
    EXPECT_EQ(kind.type->encode(decoded.get()), encoded) << "variant " << variant;
  }
}

TEST_P(KindPropertiesTest, EveryFieldIsDocumented) {
  for (const reflect::Leaf& leaf : reflect::leaves(*GetParam()->type)) {
    ASSERT_NE(leaf.field, nullptr) << leaf.path;
    EXPECT_FALSE(leaf.field->doc.empty()) << leaf.path << " has no description";
  }
}

class SpecHashTest : public KindPropertiesTest {};

// Hashing is what drift compares (seed 002): a change to any static field of the spec must
// change the hash, a change to a dynamic or behavioral field must not.
TEST_P(SpecHashTest, TracksExactlyTheStaticFields) {
  const KindInfo& kind = *GetParam();
  const reflect::FieldDesc* spec = kind.type->structSchema().find("spec");
  ASSERT_NE(spec, nullptr);
  auto specHash = [&](const std::shared_ptr<void>& obj) {
    core::Hasher hasher;
    spec->type->hash(spec->cget(obj.get()), spec, HashOptions{}, hasher);
    return hasher.value();
  };
  const uint64_t base = specHash(populated(0));
  size_t checked = 0;
  for (const reflect::Leaf& leaf : reflect::leaves(*spec->type)) {
    std::shared_ptr<void> obj = populated(0);
    void* value = reflect::resolveLeaf(*spec->type, spec->get(obj.get()), leaf);
    ASSERT_NE(value, nullptr) << leaf.path;
    Json before = leaf.type->encode(value);
    leaf.type->sample(value, leaf.field, 1);
    if (leaf.type->encode(value) == before) {
      continue;  // a single-valued enum or bound: no other value exists
    }
    ++checked;
    if (leaf.drift == reflect::Drift::Static) {
      EXPECT_NE(specHash(obj), base) << "spec." << leaf.path << " is static but not hashed";
    } else {
      EXPECT_EQ(specHash(obj), base) << "spec." << leaf.path << " is not static but hashed";
    }
  }
  EXPECT_GT(checked, 0u);
}

// Lists declared as sets or list-maps hash the same in any order.
TEST_P(SpecHashTest, IgnoresTheOrderOfSetLists) {
  const KindInfo& kind = *GetParam();
  const reflect::FieldDesc* spec = kind.type->structSchema().find("spec");
  ASSERT_NE(spec, nullptr);
  auto specHash = [&](const std::shared_ptr<void>& obj) {
    core::Hasher hasher;
    spec->type->hash(spec->cget(obj.get()), spec, HashOptions{}, hasher);
    return hasher.value();
  };
  // Every unordered list reachable through first elements, once each.
  std::vector<std::pair<std::string, reflect::Leaf>> lists;
  for (const reflect::Leaf& leaf : reflect::leaves(*spec->type)) {
    std::vector<const reflect::FieldDesc*> steps;
    std::string path;
    for (const reflect::FieldDesc* step : leaf.steps) {
      if (step != nullptr && step->type->kind == reflect::TypeKind::Array &&
          step->listType != reflect::ListType::Atomic && step->drift == reflect::Drift::Static) {
        reflect::Leaf list{path + "." + step->name, leaf.drift, step, step->type, steps};
        list.steps.push_back(step);
        if (std::none_of(lists.begin(), lists.end(),
                         [&](const auto& l) { return l.first == list.path; })) {
          lists.emplace_back(list.path, list);
        }
      }
      steps.push_back(step);
      if (step != nullptr) {
        path += "." + step->name;
      }
    }
  }
  for (const auto& entry : lists) {
    // Named copies: clang 14 cannot capture structured bindings in lambdas.
    const std::string& path = entry.first;
    const reflect::Leaf& list = entry.second;
    if (list.drift != reflect::Drift::Static) {
      continue;
    }
    std::shared_ptr<void> forward = populated(0);
    std::shared_ptr<void> backward = populated(0);
    // Two distinct elements in opposite orders, written through the list's JSON form.
    auto fill = [&](std::shared_ptr<void>& obj, bool reversed) {
      void* target = reflect::resolveLeaf(*spec->type, spec->get(obj.get()), list);
      ASSERT_NE(target, nullptr) << path;
      Json items = Json::array();
      for (int variant : {0, 1}) {
        std::shared_ptr<void> one = populated(variant);
        void* src = reflect::resolveLeaf(*spec->type, spec->get(one.get()), list);
        Json encoded = list.type->encode(src);
        ASSERT_EQ(encoded.size(), 1u) << path;
        items.push_back(encoded[0]);
      }
      if (reversed) {
        std::reverse(items.begin(), items.end());
      }
      FieldErrors errors;
      DecodeOptions options;
      reflect::DecodeContext ctx{options, errors};
      list.type->decode(items, target, reflect::PathNode{}, ctx);
      ASSERT_TRUE(errors.empty()) << path;
    };
    fill(forward, false);
    fill(backward, true);
    EXPECT_EQ(specHash(forward), specHash(backward)) << "spec" << path << " order changes the hash";
  }
}

INSTANTIATE_TEST_SUITE_P(AllKinds, KindPropertiesTest, ::testing::ValuesIn(allKinds()), kindName);
INSTANTIATE_TEST_SUITE_P(KindsWithSpec, SpecHashTest, ::testing::ValuesIn(kindsWithSpec()),
                         kindName);

TEST(RegistryTest, HoldsEveryKindOfTheApiCompatibilityList) {
  const Registry& r = builtinRegistry();
  for (auto [apiVersion, kind] : std::vector<std::pair<std::string, std::string>>{
           {"karpenter.sh/v1", "NodePool"},
           {"karpenter.sh/v1", "NodeClaim"},
           {"karpenter.k8s.aws/v1", "EC2NodeClass"},
           {"karpenter.sh/v1alpha5", "Provisioner"},
           {"karpenter.sh/v1alpha5", "Machine"},
           {"karpenter.k8s.aws/v1alpha1", "AWSNodeTemplate"},
           {"cluster.x-k8s.io/v1beta1", "Cluster"},
           {"cluster.x-k8s.io/v1beta1", "MachineDeployment"},
           {"cluster.x-k8s.io/v1beta1", "MachineSet"},
           {"cluster.x-k8s.io/v1beta1", "Machine"},
           {"cluster.x-k8s.io/v1beta1", "MachinePool"},
           {"cluster.x-k8s.io/v1beta1", "MachineHealthCheck"},
           {"infrastructure.cluster.x-k8s.io/v1beta1", "AzureCluster"},
           {"infrastructure.cluster.x-k8s.io/v1beta1", "AzureMachine"},
           {"infrastructure.cluster.x-k8s.io/v1beta1", "AzureMachineTemplate"},
           {"infrastructure.cluster.x-k8s.io/v1beta1", "AzureMachinePool"},
           {"infrastructure.cluster.x-k8s.io/v1beta1", "AzureMachinePoolMachine"},
           {"infrastructure.cluster.x-k8s.io/v1beta1", "AzureClusterIdentity"},
           {"bootstrap.cluster.x-k8s.io/v1beta1", "KubeadmConfig"},
           {"bootstrap.cluster.x-k8s.io/v1beta1", "KubeadmConfigTemplate"},
           {"controlplane.cluster.x-k8s.io/v1beta1", "KubeadmControlPlane"},
           {"v1", "Pod"},
           {"v1", "Node"},
           {"v1", "Namespace"},
           {"v1", "Event"},
           {"v1", "Secret"},
           {"coordination.k8s.io/v1", "Lease"},
       }) {
    EXPECT_NE(r.find(apiVersion, kind), nullptr) << apiVersion << " " << kind;
  }
}

}  // namespace
}  // namespace nodewright::api
