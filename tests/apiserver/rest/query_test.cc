#include "apiserver/rest/query.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

// Each row is kube-apiserver's outcome for one query spelling, taken from the apimachinery code
// named in `source`. Messages are kube's words.
namespace nodewright::apiserver::rest {
namespace {

http::Request withQuery(std::vector<std::pair<std::string, std::string>> params) {
  http::Request request;
  request.method = "GET";
  request.path = "/api/v1/namespaces/default/configmaps";
  for (auto& [name, value] : params) {
    request.query.emplace(std::move(name), std::move(value));
  }
  return request;
}

struct ListCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
  std::string source;   // the apimachinery file and function the expectation comes from
  int code;             // 0: accepted
  std::string message;  // the error's message (code != 0), or empty
  bool watch = false;
  int64_t limit = 0;
};

class ListOptionsTest : public ::testing::TestWithParam<ListCase> {};

TEST_P(ListOptionsTest, ParsesAsApimachinery) {
  const ListCase& c = GetParam();
  auto options = listOptions(withQuery(c.params));
  if (c.code == 0) {
    ASSERT_TRUE(options) << c.source << ": " << options.error().message;
    EXPECT_EQ(options->watch, c.watch) << c.source;
    EXPECT_EQ(options->limit, c.limit) << c.source;
    return;
  }
  ASSERT_FALSE(options) << c.source;
  EXPECT_EQ(options.error().code, c.code) << c.source;
  EXPECT_EQ(options.error().message, c.message) << c.source;
}

// runtime/conversion.go Convert_Slice_string_To_bool: "0" or EqualFold("false") is false,
// everything else (the empty value too) is true; the first value of a repeated parameter wins.
constexpr const char* kBool = "apimachinery pkg/runtime/conversion.go Convert_Slice_string_To_bool";
// runtime/conversion.go Convert_Slice_string_To_int64 / _Pointer_int64: strconv.ParseInt(s, 10,
// 64), whose error apiserver handlers/get.go listOpts returns as errors.NewBadRequest.
constexpr const char* kInt =
    "apimachinery pkg/runtime/conversion.go Convert_Slice_string_To_int64 (strconv.ParseInt)";
constexpr const char* kValidate =
    "apimachinery pkg/apis/meta/internalversion/validation/validation.go ValidateListOptions";

INSTANTIATE_TEST_SUITE_P(
    Spellings, ListOptionsTest,
    ::testing::Values(
        ListCase{"WatchTrue", {{"watch", "True"}}, kBool, 0, "", true},
        ListCase{"WatchLowerTrue", {{"watch", "true"}}, kBool, 0, "", true},
        ListCase{"WatchOne", {{"watch", "1"}}, kBool, 0, "", true},
        ListCase{"WatchT", {{"watch", "t"}}, kBool, 0, "", true},
        ListCase{"WatchYes", {{"watch", "yes"}}, kBool, 0, "", true},
        ListCase{"WatchEmpty", {{"watch", ""}}, kBool, 0, "", true},
        ListCase{"WatchFalse", {{"watch", "false"}}, kBool, 0, "", false},
        ListCase{"WatchUpperFalse", {{"watch", "FALSE"}}, kBool, 0, "", false},
        ListCase{"WatchMixedFalse", {{"watch", "fAlSe"}}, kBool, 0, "", false},
        ListCase{"WatchZero", {{"watch", "0"}}, kBool, 0, "", false},
        ListCase{"WatchF", {{"watch", "f"}}, kBool, 0, "", true},
        ListCase{"WatchDoubleZero", {{"watch", "00"}}, kBool, 0, "", true},
        ListCase{
            "WatchRepeatedFirstWins", {{"watch", "0"}, {"watch", "true"}}, kBool, 0, "", false},
        ListCase{"NoWatch", {}, kBool, 0, "", false},
        ListCase{"LimitNumber", {{"limit", "5"}}, kInt, 0, "", false, 5},
        ListCase{"LimitPlusSign", {{"limit", "+5"}}, kInt, 0, "", false, 5},
        ListCase{"LimitNegativeListsAll", {{"limit", "-1"}}, kInt, 0, "", false, -1},
        ListCase{
            "LimitRepeatedFirstWins", {{"limit", "2"}, {"limit", "abc"}}, kInt, 0, "", false, 2},
        ListCase{"LimitWord",
                 {{"limit", "abc"}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \"abc\": invalid syntax"},
        ListCase{"LimitEmpty",
                 {{"limit", ""}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \"\": invalid syntax"},
        ListCase{"LimitFraction",
                 {{"limit", "1.5"}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \"1.5\": invalid syntax"},
        ListCase{"LimitSpace",
                 {{"limit", " 1"}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \" 1\": invalid syntax"},
        ListCase{"LimitUnderscore",
                 {{"limit", "1_0"}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \"1_0\": invalid syntax"},
        ListCase{"LimitOverflow",
                 {{"limit", "9223372036854775808"}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \"9223372036854775808\": value out of range"},
        ListCase{"TimeoutWord",
                 {{"watch", "1"}, {"timeoutSeconds", "x"}},
                 kInt,
                 400,
                 "strconv.ParseInt: parsing \"x\": invalid syntax"},
        ListCase{"TimeoutNegativeAccepted",
                 {{"watch", "1"}, {"timeoutSeconds", "-3"}},
                 kInt,
                 0,
                 "",
                 true},
        ListCase{"ListWithMatchNeedsResourceVersion",
                 {{"resourceVersionMatch", "NotOlderThan"}},
                 kValidate,
                 422,
                 "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                 "resourceVersionMatch is forbidden unless resourceVersion is provided"},
        ListCase{"ListWithExactMatch",
                 {{"resourceVersion", "5"}, {"resourceVersionMatch", "Exact"}},
                 kValidate,
                 0,
                 ""},
        ListCase{"ListWithExactMatchAtZero",
                 {{"resourceVersion", "0"}, {"resourceVersionMatch", "Exact"}},
                 kValidate,
                 422,
                 "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                 "resourceVersionMatch \"exact\" is forbidden for resourceVersion \"0\""},
        ListCase{"ListWithUnknownMatch",
                 {{"resourceVersion", "5"}, {"resourceVersionMatch", "exact"}},
                 kValidate,
                 422,
                 "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Unsupported "
                 "value: \"exact\": supported values: \"Exact\", \"NotOlderThan\", \"\""},
        ListCase{"ListWithMatchAndContinue",
                 {{"resourceVersion", "5"},
                  {"resourceVersionMatch", "NotOlderThan"},
                  {"continue", "abc"}},
                 kValidate,
                 422,
                 "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                 "resourceVersionMatch is forbidden when continue is provided"},
        ListCase{"ListWithSendInitialEvents",
                 {{"sendInitialEvents", "true"}},
                 kValidate,
                 422,
                 "ListOptions.meta.k8s.io \"\" is invalid: sendInitialEvents: Forbidden: "
                 "sendInitialEvents is forbidden for list"},
        ListCase{"WatchListWithNotOlderThan",
                 {{"watch", "1"},
                  {"sendInitialEvents", "true"},
                  {"resourceVersionMatch", "NotOlderThan"}},
                 kValidate,
                 0,
                 "",
                 true},
        ListCase{"WatchSendInitialEventsWithoutMatch",
                 {{"watch", "1"}, {"sendInitialEvents", "true"}},
                 kValidate,
                 422,
                 "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
                 "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan"},
        ListCase{
            "WatchMatchWithoutSendInitialEventsFromRevision",
            {{"watch", "1"}, {"resourceVersion", "7"}, {"resourceVersionMatch", "NotOlderThan"}},
            kValidate,
            422,
            "ListOptions.meta.k8s.io \"\" is invalid: resourceVersionMatch: Forbidden: "
            "resourceVersionMatch is forbidden for watch unless sendInitialEvents is provided"},
        ListCase{
            "WatchExactMatch",
            {{"watch", "1"}, {"sendInitialEvents", "false"}, {"resourceVersionMatch", "Exact"}},
            kValidate,
            422,
            "ListOptions.meta.k8s.io \"\" is invalid: [resourceVersionMatch: Forbidden: "
            "sendInitialEvents requires setting resourceVersionMatch to NotOlderThan, "
            "resourceVersionMatch: Unsupported value: \"Exact\": supported values: "
            "\"NotOlderThan\"]"},
        ListCase{"LegacyWatchIsDefaultedValid",
                 {{"watch", "true"}, {"resourceVersion", "0"}},
                 "apimachinery pkg/apis/meta/internalversion/defaults.go SetListOptionsDefaults",
                 0,
                 "",
                 true}),
    [](const auto& info) { return info.param.name; });

TEST(QueryBoolTest, FalseOnlyForZeroAndFalseInAnyCase) {
  for (const char* value : {"0", "false", "False", "FALSE", "fALSE"}) {
    EXPECT_FALSE(queryBool(value)) << value;
  }
  for (const char* value : {"", "1", "t", "T", "true", "True", "no", "off", "falsey", " false"}) {
    EXPECT_TRUE(queryBool(value)) << value;
  }
}

TEST(ParseInt64Test, AcceptsTheInt64RangeAndRejectsBeyond) {
  EXPECT_EQ(parseInt64("-9223372036854775808").value(), INT64_MIN);
  EXPECT_EQ(parseInt64("9223372036854775807").value(), INT64_MAX);
  auto under = parseInt64("-9223372036854775809");
  ASSERT_FALSE(under);
  EXPECT_EQ(under.error().message,
            "strconv.ParseInt: parsing \"-9223372036854775809\": value out of range");
  auto sign = parseInt64("-");
  ASSERT_FALSE(sign);
  EXPECT_EQ(sign.error().message, "strconv.ParseInt: parsing \"-\": invalid syntax");
}

struct WriteCase {
  std::string name;
  std::vector<std::pair<std::string, std::string>> params;
  std::string contentType;
  std::string optionsKind;
  std::string message;  // empty: accepted; else the 422's message
};

class WriteQueryTest : public ::testing::TestWithParam<WriteCase> {};

// apimachinery pkg/apis/meta/v1/validation/validation.go ValidateCreateOptions,
// ValidateUpdateOptions, ValidatePatchOptions, ValidateFieldManager (128 bytes, unicode.IsPrint),
// ValidateDryRun and ValidateFieldValidation; the handlers answer errors.NewInvalid on
// meta.k8s.io/<Kind>Options.
TEST_P(WriteQueryTest, ValidatesAsApimachinery) {
  const WriteCase& c = GetParam();
  http::Request request = withQuery(c.params);
  if (!c.contentType.empty()) {
    request.headers["content-type"] = c.contentType;
  }
  auto problem = checkWriteQuery(request, c.optionsKind);
  if (c.message.empty()) {
    EXPECT_FALSE(problem) << problem->message;
    return;
  }
  ASSERT_TRUE(problem);
  EXPECT_EQ(problem->code, 422);
  EXPECT_EQ(problem->message, c.message);
}

INSTANTIATE_TEST_SUITE_P(
    Options, WriteQueryTest,
    ::testing::Values(
        WriteCase{"FieldManagerOf128Bytes",
                  {{"fieldManager", std::string(128, 'm')}},
                  "",
                  "CreateOptions",
                  ""},
        WriteCase{"FieldManagerOf129Bytes",
                  {{"fieldManager", std::string(129, 'm')}},
                  "",
                  "CreateOptions",
                  "CreateOptions.meta.k8s.io \"\" is invalid: fieldManager: Too long: may not be "
                  "more than 128 bytes"},
        WriteCase{"FieldManagerWithSpaceAndUnicode",
                  {{"fieldManager", "my tool \xc3\xa9"}},
                  "",
                  "UpdateOptions",
                  ""},
        WriteCase{"FieldManagerWithControlCharacter",
                  {{"fieldManager", "ab\tc"}},
                  "",
                  "UpdateOptions",
                  "UpdateOptions.meta.k8s.io \"\" is invalid: fieldManager: Invalid value: "
                  "\"ab\\tc\": invalid character U+0009 (at position 2)"},
        WriteCase{"ApplyNeedsFieldManager",
                  {},
                  "application/apply-patch+yaml",
                  "PatchOptions",
                  "PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is "
                  "required for apply patch"},
        WriteCase{"ForceOnlyForApply",
                  {{"force", "true"}},
                  "application/merge-patch+json",
                  "PatchOptions",
                  "PatchOptions.meta.k8s.io \"\" is invalid: force: Forbidden: may not be "
                  "specified for non-apply patch"},
        WriteCase{"DryRunAll", {{"dryRun", "All"}}, "", "CreateOptions", ""},
        WriteCase{"DryRunOther",
                  {{"dryRun", "all"}},
                  "",
                  "CreateOptions",
                  "CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: "
                  "[]string{\"all\"}: supported values: \"All\""},
        WriteCase{"FieldValidationUnknown",
                  {{"fieldValidation", "strict"}},
                  "",
                  "CreateOptions",
                  "CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: "
                  "\"strict\": supported values: \"\", \"Ignore\", \"Strict\", \"Warn\""}),
    [](const auto& info) { return info.param.name; });

}  // namespace
}  // namespace nodewright::apiserver::rest
