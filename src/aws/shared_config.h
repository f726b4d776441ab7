#pragma once

#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "aws/credentials.h"
#include "aws/error.h"

// The shared config (~/.aws/config) and credentials (~/.aws/credentials) files.
// https://docs.aws.amazon.com/sdkref/latest/guide/file-format.html
namespace nodewright::aws {

// One INI file: section name -> key -> value, as written (the "profile " prefix is kept).
//
// Lines are `[section]`, `key = value`, blank, or comments starting with '#' or ';'. A '#' or
// ';' after whitespace starts an inline comment. Indented lines below a key with an empty value
// are its sub-properties (`s3 =` / `  max_concurrent_requests = 10`) and are skipped. Later keys
// and sections of the same name override earlier ones. Keys are case-sensitive, as in botocore.
// Any other line is an InvalidConfigFile error naming file:line but never the line's text,
// which may hold a secret.
using IniSections = std::map<std::string, std::map<std::string, std::string>>;
ApiResult<IniSections> parseIni(std::string_view text, std::string_view fileName);

// The values of one profile, from both files.
struct Profile {
  std::string name;
  std::map<std::string, std::string> values;
  bool found = false;  // a section for it exists in either file

  std::optional<std::string> get(std::string_view key) const;
};

// Where the files are: AWS_CONFIG_FILE (default ~/.aws/config), AWS_SHARED_CREDENTIALS_FILE
// (default ~/.aws/credentials), with a leading "~/" taken from HOME; the profile is AWS_PROFILE
// (default "default").
struct SharedConfigPaths {
  std::string configFile;
  std::string credentialsFile;
  std::string profile;
};
SharedConfigPaths sharedConfigPaths(const EnvLookup& env);

// Reads the profile: `[profile NAME]` (or `[default]`) in the config file, `[NAME]` in the
// credentials file, whose values win. A missing file is no error; an unreadable or malformed
// one is. A profile found in neither file is no error either (found = false): callers decide.
ApiResult<Profile> loadProfile(const EnvLookup& env);

class Transport;

// Credentials of the profile: aws_access_key_id, aws_secret_access_key and
// aws_session_token; or, when it has role_arn and web_identity_token_file, web identity through
// STS. Other role profiles (source_profile, credential_source, SSO, credential_process) are
// Invalid: unsupported rather than silently skipped. NotFound when the profile or its keys are
// absent and AWS_PROFILE is not set; an AWS_PROFILE naming no profile is an error.
// Files are read on the first successful get() and kept; thread-safe.
class SharedFileCredentials final : public CredentialsProvider {
 public:
  // `transport` and `clock` are used for web identity only and must outlive this.
  SharedFileCredentials(EnvLookup env, Transport& transport, const core::Clock& clock,
                        std::string region);
  ~SharedFileCredentials() override;
  ApiResult<sigv4::Credentials> get() override;
  std::string name() const override { return "shared-files"; }

 private:
  ApiResult<CredentialsProviderPtr> load();

  const EnvLookup env_;
  Transport& transport_;
  const core::Clock& clock_;
  const std::string region_;
  std::mutex mu_;
  CredentialsProviderPtr loaded_;  // guarded by mu_; static keys or web identity
};

}  // namespace nodewright::aws
