#include "aws/shared_config.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "aws/web_identity.h"

namespace nodewright::aws {
namespace {

bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v';
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) {
    s.remove_prefix(1);
  }
  while (!s.empty() && isSpace(s.back())) {
    s.remove_suffix(1);
  }
  return s;
}

// Cuts an inline comment: '#' or ';' preceded by whitespace.
std::string_view stripInlineComment(std::string_view s) {
  for (size_t i = 1; i < s.size(); ++i) {
    if ((s[i] == '#' || s[i] == ';') && isSpace(s[i - 1])) {
      return trim(s.substr(0, i));
    }
  }
  return s;
}

ApiError malformed(std::string_view fileName, size_t line, std::string_view what) {
  // The line's text is left out on purpose: it may be a secret key.
  return ApiError{"InvalidConfigFile",
                  std::string(fileName) + ":" + std::to_string(line) + ": " + std::string(what), 0};
}

// The file's text; nullopt when it does not exist.
ApiResult<std::optional<std::string>> readOptionalFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    if (errno == ENOENT) {
      return std::optional<std::string>();
    }
    return apiFail("InvalidConfigFile", "reading " + path + ": " + std::strerror(errno), 0);
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return apiFail("InvalidConfigFile", "reading " + path + ": read error", 0);
  }
  return std::optional<std::string>(text.str());
}

std::string expandHome(const std::string& path, const EnvLookup& env) {
  if (path == "~" || path.rfind("~/", 0) == 0) {
    return env("HOME").value_or("") + path.substr(1);
  }
  return path;
}

// Adds the values of `section` in `file` to `profile`, overriding what is there.
void mergeSection(const IniSections& file, const std::string& section, Profile& profile) {
  auto it = file.find(section);
  if (it == file.end()) {
    return;
  }
  profile.found = true;
  for (const auto& [key, value] : it->second) {
    profile.values[key] = value;
  }
}

}  // namespace

ApiResult<IniSections> parseIni(std::string_view text, std::string_view fileName) {
  IniSections sections;
  std::map<std::string, std::string>* current = nullptr;
  bool inNested = false;  // below a key with an empty value
  size_t lineNo = 0;
  for (size_t pos = 0; pos <= text.size();) {
    ++lineNo;
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) {
      end = text.size();
    }
    std::string_view raw = text.substr(pos, end - pos);
    pos = end + 1;
    std::string_view line = trim(raw);
    if (line.empty() || line.front() == '#' || line.front() == ';') {
      continue;
    }
    const bool indented = isSpace(raw.front());
    if (indented && inNested) {
      continue;  // a sub-property, e.g. of `s3 =`; none that nodewright reads
    }
    inNested = false;
    if (line.front() == '[') {
      size_t close = line.find(']');
      if (close == std::string_view::npos) {
        return tl::unexpected(malformed(fileName, lineNo, "section header without ']'"));
      }
      std::string_view rest = trim(line.substr(close + 1));
      if (!rest.empty() && rest.front() != '#' && rest.front() != ';') {
        return tl::unexpected(malformed(fileName, lineNo, "text after a section header"));
      }
      std::string name(trim(line.substr(1, close - 1)));
      if (name.empty()) {
        return tl::unexpected(malformed(fileName, lineNo, "empty section name"));
      }
      current = &sections[name];
    } else {
      size_t eq = line.find('=');
      if (eq == std::string_view::npos) {
        return tl::unexpected(malformed(fileName, lineNo, "expected '[section]' or 'key = value'"));
      }
      std::string key(trim(line.substr(0, eq)));
      if (key.empty()) {
        return tl::unexpected(malformed(fileName, lineNo, "empty key"));
      }
      if (current == nullptr) {
        return tl::unexpected(malformed(fileName, lineNo, "key before any section"));
      }
      std::string value(stripInlineComment(trim(line.substr(eq + 1))));
      inNested = value.empty();
      (*current)[key] = std::move(value);
    }
  }
  return sections;
}

std::optional<std::string> Profile::get(std::string_view key) const {
  auto it = values.find(std::string(key));
  if (it == values.end() || it->second.empty()) {
    return std::nullopt;
  }
  return it->second;
}

SharedConfigPaths sharedConfigPaths(const EnvLookup& env) {
  return SharedConfigPaths{
      expandHome(env("AWS_CONFIG_FILE").value_or("~/.aws/config"), env),
      expandHome(env("AWS_SHARED_CREDENTIALS_FILE").value_or("~/.aws/credentials"), env),
      env("AWS_PROFILE").value_or("default"),
  };
}

ApiResult<Profile> loadProfile(const EnvLookup& env) {
  const SharedConfigPaths paths = sharedConfigPaths(env);
  Profile profile;
  profile.name = paths.profile;
  auto config = readOptionalFile(paths.configFile);
  if (!config) {
    return tl::unexpected(config.error());
  }
  if (*config) {
    auto sections = parseIni(**config, paths.configFile);
    if (!sections) {
      return tl::unexpected(sections.error());
    }
    // [default] and [profile default] both name the default profile; the latter wins.
    if (paths.profile == "default") {
      mergeSection(*sections, "default", profile);
    }
    mergeSection(*sections, "profile " + paths.profile, profile);
  }
  auto credentials = readOptionalFile(paths.credentialsFile);
  if (!credentials) {
    return tl::unexpected(credentials.error());
  }
  if (*credentials) {
    auto sections = parseIni(**credentials, paths.credentialsFile);
    if (!sections) {
      return tl::unexpected(sections.error());
    }
    mergeSection(*sections, paths.profile, profile);
  }
  return profile;
}

namespace {

// Long-term (or session) keys from a profile; they do not expire on their own.
class StaticCredentials final : public CredentialsProvider {
 public:
  explicit StaticCredentials(sigv4::Credentials credentials)
      : credentials_(std::move(credentials)) {}
  ApiResult<sigv4::Credentials> get() override { return credentials_; }
  std::string name() const override { return "shared-files"; }

 private:
  const sigv4::Credentials credentials_;
};

}  // namespace

SharedFileCredentials::SharedFileCredentials(EnvLookup env, Transport& transport,
                                             const core::Clock& clock, std::string region)
    : env_(std::move(env)), transport_(transport), clock_(clock), region_(std::move(region)) {}

SharedFileCredentials::~SharedFileCredentials() = default;

ApiResult<sigv4::Credentials> SharedFileCredentials::get() {
  std::lock_guard lock(mu_);
  if (!loaded_) {
    auto loaded = load();
    if (!loaded) {
      return tl::unexpected(loaded.error());
    }
    loaded_ = std::move(*loaded);
  }
  return loaded_->get();
}

ApiResult<CredentialsProviderPtr> SharedFileCredentials::load() {
  auto profile = loadProfile(env_);
  if (!profile) {
    return tl::unexpected(profile.error());
  }
  const std::string where = "profile \"" + profile->name + "\"";
  if (!profile->found) {
    if (env_("AWS_PROFILE")) {
      const SharedConfigPaths paths = sharedConfigPaths(env_);
      return apiFail("ProfileNotFound",
                     where + " (AWS_PROFILE) is in neither " + paths.configFile + " nor " +
                         paths.credentialsFile,
                     0);
    }
    return apiFail(kCredentialsNotFound, where + " not found in the shared files", 0);
  }
  auto roleArn = profile->get("role_arn");
  if (roleArn) {
    auto tokenFile = profile->get("web_identity_token_file");
    if (!tokenFile) {
      return apiFail("InvalidConfigFile",
                     where + ": role_arn is supported only with web_identity_token_file", 0);
    }
    auto endpoint =
        stsEndpoint(env_, region_.empty() ? profile->get("region").value_or("") : region_);
    if (!endpoint) {
      return tl::unexpected(endpoint.error());
    }
    WebIdentityOptions options{*roleArn, expandHome(*tokenFile, env_),
                               profile->get("role_session_name").value_or(""), *endpoint};
    return CredentialsProviderPtr(
        std::make_unique<WebIdentityCredentials>(std::move(options), transport_, clock_));
  }
  auto id = profile->get("aws_access_key_id");
  auto secret = profile->get("aws_secret_access_key");
  if (!id && !secret) {
    for (const char* key : {"credential_process", "sso_session", "sso_start_url",
                            "credential_source", "source_profile"}) {
      if (profile->get(key)) {
        return apiFail("InvalidConfigFile", where + ": " + key + " is not supported by nodewright",
                       0);
      }
    }
    return apiFail(kCredentialsNotFound, where + " has no aws_access_key_id", 0);
  }
  if (!id || !secret) {
    return apiFail("InvalidConfigFile",
                   where + " has " + (id ? "aws_access_key_id" : "aws_secret_access_key") +
                       " without " + (id ? "aws_secret_access_key" : "aws_access_key_id"),
                   0);
  }
  return CredentialsProviderPtr(std::make_unique<StaticCredentials>(
      sigv4::Credentials{*id, *secret, profile->get("aws_session_token").value_or("")}));
}

}  // namespace nodewright::aws
