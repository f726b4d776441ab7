#include "aws/error_class.h"

#include <gtest/gtest.h>

namespace nodewright::aws {
namespace {

struct ClassCase {
  const char* name;
  ApiError error;
  ErrorClass expected;
  bool retry;
};

class ErrorClassTest : public ::testing::TestWithParam<ClassCase> {};

TEST_P(ErrorClassTest, ClassifiesByCodeThenStatus) {
  const ClassCase& c = GetParam();
  EXPECT_EQ(errorClassName(classify(c.error)), std::string(errorClassName(c.expected)))
      << c.error.code << " " << c.error.httpStatus;
  EXPECT_EQ(retryable(c.error), c.retry);
}

INSTANTIATE_TEST_SUITE_P(
    Codes, ErrorClassTest,
    ::testing::Values(
        ClassCase{
            "RequestLimitExceeded", {"RequestLimitExceeded", "", 503}, ErrorClass::Throttled, true},
        ClassCase{"Throttling", {"Throttling", "", 400}, ErrorClass::Throttled, true},
        ClassCase{
            "ThrottlingException", {"ThrottlingException", "", 400}, ErrorClass::Throttled, true},
        ClassCase{
            "TooManyRequests", {"TooManyRequestsException", "", 429}, ErrorClass::Throttled, true},
        ClassCase{"SlowDown", {"SlowDown", "", 503}, ErrorClass::Throttled, true},
        ClassCase{"Unknown429", {"Whatever", "", 429}, ErrorClass::Throttled, true},
        ClassCase{"ClientRateLimited", {"ClientRateLimited", "", 0}, ErrorClass::Throttled, true},
        // EC2 sends it with 500; it is an answer about capacity, not a server fault.
        ClassCase{"InsufficientInstanceCapacity",
                  {"InsufficientInstanceCapacity", "", 500},
                  ErrorClass::Capacity,
                  false},
        ClassCase{"InsufficientHostCapacity",
                  {"InsufficientHostCapacity", "", 400},
                  ErrorClass::Capacity,
                  false},
        ClassCase{"InsufficientReservedInstanceCapacity",
                  {"InsufficientReservedInstanceCapacity", "", 400},
                  ErrorClass::Capacity,
                  false},
        ClassCase{"MaxSpotInstanceCountExceeded",
                  {"MaxSpotInstanceCountExceeded", "", 400},
                  ErrorClass::Capacity,
                  false},
        ClassCase{"UnsupportedInZone", {"Unsupported", "", 400}, ErrorClass::Capacity, false},
        ClassCase{"InstanceNotFound",
                  {"InvalidInstanceID.NotFound", "", 400},
                  ErrorClass::NotFound,
                  false},
        ClassCase{"TemplateNotFoundException",
                  {"InvalidLaunchTemplateName.NotFoundException", "", 400},
                  ErrorClass::NotFound,
                  false},
        ClassCase{"ParameterNotFound", {"ParameterNotFound", "", 400}, ErrorClass::NotFound, false},
        ClassCase{"QueueDoesNotExist", {"QueueDoesNotExist", "", 400}, ErrorClass::NotFound, false},
        ClassCase{"Unknown404", {"Whatever", "", 404}, ErrorClass::NotFound, false},
        ClassCase{"InvalidParameterValue",
                  {"InvalidParameterValue", "", 400},
                  ErrorClass::InvalidParameter,
                  false},
        ClassCase{"InvalidParameterCombination",
                  {"InvalidParameterCombination", "", 400},
                  ErrorClass::InvalidParameter,
                  false},
        ClassCase{
            "MissingParameter", {"MissingParameter", "", 400}, ErrorClass::InvalidParameter, false},
        ClassCase{"Malformed",
                  {"InvalidInstanceID.Malformed", "", 400},
                  ErrorClass::InvalidParameter,
                  false},
        ClassCase{"AuthFailure", {"AuthFailure", "", 401}, ErrorClass::Unauthorized, false},
        ClassCase{"UnauthorizedOperation",
                  {"UnauthorizedOperation", "", 403},
                  ErrorClass::Unauthorized,
                  false},
        ClassCase{"SignatureDoesNotMatch",
                  {"SignatureDoesNotMatch", "", 403},
                  ErrorClass::Unauthorized,
                  false},
        ClassCase{"InvalidClientTokenId",
                  {"InvalidClientTokenId", "", 403},
                  ErrorClass::Unauthorized,
                  false},
        ClassCase{"ExpiredToken", {"ExpiredToken", "", 400}, ErrorClass::Unauthorized, false},
        ClassCase{"RequestExpired", {"RequestExpired", "", 400}, ErrorClass::Unauthorized, false},
        ClassCase{"Unknown403", {"Whatever", "", 403}, ErrorClass::Unauthorized, false},
        ClassCase{"InternalError", {"InternalError", "", 500}, ErrorClass::Server, true},
        ClassCase{"Unavailable", {"Unavailable", "", 503}, ErrorClass::Server, true},
        ClassCase{"Unknown502", {"UnknownError", "", 502}, ErrorClass::Server, true},
        ClassCase{
            "NoResponse", {"TransportError", "connection refused", 0}, ErrorClass::Transport, true},
        ClassCase{"TimedOut", {"RequestTimeout", "", 0}, ErrorClass::Transport, true},
        ClassCase{"IdempotentParameterMismatch",
                  {"IdempotentParameterMismatch", "", 400},
                  ErrorClass::Other,
                  false},
        ClassCase{"AlreadyExists",
                  {"InvalidLaunchTemplateName.AlreadyExistsException", "", 400},
                  ErrorClass::Other,
                  false},
        ClassCase{"Unknown400", {"Whatever", "", 400}, ErrorClass::Other, false}),
    [](const ::testing::TestParamInfo<ClassCase>& info) { return std::string(info.param.name); });

TEST(ToCoreErrorTest, MapsClassesToCoreCodes) {
  EXPECT_TRUE(toCoreError({"RequestLimitExceeded", "x", 503}).is(core::Code::Throttled));
  EXPECT_TRUE(
      toCoreError({"InsufficientInstanceCapacity", "x", 500}).is(core::Code::InsufficientCapacity));
  EXPECT_TRUE(toCoreError({"InvalidInstanceID.NotFound", "x", 400}).is(core::Code::NotFound));
  EXPECT_TRUE(toCoreError({"InvalidParameterValue", "x", 400}).is(core::Code::Invalid));
  EXPECT_TRUE(toCoreError({"IdempotentParameterMismatch", "x", 400}).is(core::Code::Conflict));
  EXPECT_TRUE(toCoreError({"AuthFailure", "x", 401}).is(core::Code::Internal));
  EXPECT_EQ(toCoreError({"InternalError", "boom", 500}).message(), "InternalError: boom");
}

}  // namespace
}  // namespace nodewright::aws
