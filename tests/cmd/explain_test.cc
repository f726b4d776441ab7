#include <gtest/gtest.h>

#include "api/crd/test_kinds.h"
#include "cmd_test_util.h"

namespace nodewright::cmd {
namespace {

using testing::Ran;

Ran explain(std::vector<std::string> args) {
  args.insert(args.begin(), "explain");
  return testing::runWith(testkinds::testRegistry(), args);
}

constexpr const char* kWidgetHeader =
    "GROUP:      test.nodewright.io\n"
    "KIND:       Widget\n"
    "VERSION:    v1\n"
    "\n";

TEST(ExplainCommandTest, KindListsItsFieldsWithTypesAndDocs) {
  Ran r = explain({"widget"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string(kWidgetHeader) +
                       "DESCRIPTION:\n"
                       "    A widget for tests.\n"
                       "\n"
                       "FIELDS:\n"
                       "  apiVersion\t<string>\n"
                       "    APIVersion defines the versioned schema of this representation of an "
                       "object.\n"
                       "\n"
                       "  kind\t<string>\n"
                       "    Kind is a string value representing the REST resource this object "
                       "represents.\n"
                       "\n"
                       "  metadata\t<ObjectMeta>\n"
                       "    Standard object's metadata.\n"
                       "\n"
                       "  spec\t<WidgetSpec> -required-\n"
                       "    Desired state.\n"
                       "\n"
                       "  status\t<WidgetStatus>\n"
                       "    Observed state.\n"
                       "\n");
  EXPECT_EQ(r.err, "");
}

TEST(ExplainCommandTest, FindsKindByPluralShortNameAndAnyCase) {
  std::string expected = explain({"widget"}).out;
  for (const char* name : {"widgets", "wd", "Widget", "WIDGETS"}) {
    Ran r = explain({name});
    EXPECT_EQ(r.code, 0) << name;
    EXPECT_EQ(r.out, expected) << name;
  }
}

TEST(ExplainCommandTest, NestedListFieldShowsItsItemFields) {
  Ran r = explain({"widget.spec.ports"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string(kWidgetHeader) +
                       "FIELD: ports <[]Port>\n"
                       "\n"
                       "DESCRIPTION:\n"
                       "    Ports the widget listens on.\n"
                       "\n"
                       "FIELDS:\n"
                       "  name\t<string> -required-\n"
                       "    Name of the port.\n"
                       "\n"
                       "  port\t<integer>\n"
                       "    Port number.\n"
                       "\n"
                       "  protocol\t<string>\n"
                       "    Transport protocol.\n"
                       "\n");
}

TEST(ExplainCommandTest, LeafFieldShowsEnumAndDefault) {
  Ran r = explain({"widget.spec.ports.protocol"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string(kWidgetHeader) +
                       "FIELD: protocol <string>\n"
                       "\n"
                       "DESCRIPTION:\n"
                       "    Transport protocol.\n"
                       "\n"
                       "ENUM:\n"
                       "    TCP\n"
                       "    UDP\n"
                       "\n"
                       "DEFAULT: \"TCP\"\n");
}

TEST(ExplainCommandTest, RecursiveListsTheWholeTreeIndented) {
  Ran r = explain({"widget.spec", "--recursive"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out, std::string(kWidgetHeader) +
                       "FIELD: spec <WidgetSpec>\n"
                       "\n"
                       "DESCRIPTION:\n"
                       "    Desired state.\n"
                       "\n"
                       "FIELDS:\n"
                       "  size\t<string> -required-\n"
                       "  replicas\t<integer>\n"
                       "  ports\t<[]Port>\n"
                       "    name\t<string> -required-\n"
                       "    port\t<integer>\n"
                       "    protocol\t<string>\n"
                       "  labels\t<map[string]string>\n"
                       "  zones\t<[]string>\n"
                       "  memory\t<Quantity>\n"
                       "  maxUnavailable\t<IntOrString>\n"
                       "  extra\t<object>\n");
}

TEST(ExplainCommandTest, ApiVersionPicksAnOlderVersion) {
  Ran r = explain({"widget.spec", "--api-version", "test.nodewright.io/v1alpha1"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out,
            "GROUP:      test.nodewright.io\n"
            "KIND:       Widget\n"
            "VERSION:    v1alpha1\n"
            "\n"
            "FIELD: spec <map[string]string>\n"
            "\n"
            "DESCRIPTION:\n"
            "    Settings.\n");
}

TEST(ExplainCommandTest, UnknownFieldExitsOneNamingIt) {
  Ran r = explain({"widget.spec.colour"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error: field \"colour\" does not exist\n");
}

TEST(ExplainCommandTest, FieldBelowAScalarDoesNotExist) {
  Ran r = explain({"widget.spec.size.length"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: field \"length\" does not exist\n");
}

TEST(ExplainCommandTest, UnknownKindExitsOne) {
  Ran r = explain({"doohickey.spec"});
  EXPECT_EQ(r.code, 1);
  EXPECT_EQ(r.err, "error: the server doesn't have a resource type \"doohickey\"\n");
}

// The real model, generically: the header and field docs come from the registry.
TEST(ExplainCommandTest, ExplainsNetworkInterfaceDeviceIndexOfEc2NodeClass) {
  const api::KindInfo* info = api::builtinRegistry().lookup("ec2nodeclass");
  ASSERT_NE(info, nullptr) << "EC2NodeClass is not registered";
  const auto* spec = info->type->structSchema().find("spec");
  ASSERT_NE(spec, nullptr);
  const api::reflect::TypeOps* t = spec->type;
  while (t->kind != api::reflect::TypeKind::Struct) {
    t = t->elem();
  }
  const auto* nics = t->structSchema().find("networkInterfaces");
  ASSERT_NE(nics, nullptr);
  const api::reflect::TypeOps* nic = nics->type;
  while (nic->kind != api::reflect::TypeKind::Struct) {
    nic = nic->elem();
  }
  const auto* deviceIndex = nic->structSchema().find("deviceIndex");
  ASSERT_NE(deviceIndex, nullptr);

  Ran r = testing::runCmd({"explain", "ec2nodeclass.spec.networkInterfaces.deviceIndex"});
  EXPECT_EQ(r.code, 0) << r.err;
  EXPECT_EQ(r.out.rfind("GROUP:      karpenter.k8s.aws\n"
                        "KIND:       EC2NodeClass\n"
                        "VERSION:    v1\n"
                        "\n"
                        "FIELD: deviceIndex <integer>\n"
                        "\n"
                        "DESCRIPTION:\n"
                        "    " +
                            deviceIndex->doc + "\n",
                        0),
            0u)
      << r.out;
  EXPECT_EQ(r.out.find("FIELDS:"), std::string::npos) << r.out;
}

TEST(ExplainCommandTest, EveryRegisteredKindExplainsRecursively) {
  for (const api::KindInfo& k : api::builtinRegistry().kinds()) {
    Ran r = testing::runCmd({"explain", k.kind, "--api-version", k.apiVersion(), "--recursive"});
    EXPECT_EQ(r.code, 0) << k.kind << ": " << r.err;
    EXPECT_NE(r.out.find("KIND:       " + k.kind + "\nVERSION:    " + k.version + "\n"),
              std::string::npos)
        << r.out;
  }
}

}  // namespace
}  // namespace nodewright::cmd
