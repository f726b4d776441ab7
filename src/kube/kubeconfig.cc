// Kubeconfig files as clientcmd reads them: the structure of every entry is checked, but only
// the selected context's cluster and user are resolved (files read, base64 decoded, checked
// for usability), so a stale entry elsewhere does not break the one in use.
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string_view>

#include "api/core/validation.h"
#include "api/reflect/field_errors.h"
#include "api/yaml.h"
#include "kube/config.h"
#include "kube/local_file.h"

namespace nodewright::kube {
namespace {

using api::FieldError;
using api::FieldErrors;
using api::FieldPath;
using api::Json;

constexpr std::string_view kExecV1 = "client.authentication.k8s.io/v1";
constexpr std::string_view kExecV1beta1 = "client.authentication.k8s.io/v1beta1";
constexpr std::string_view kSourcePrefix = "kubeconfig ";

// Typed reads of one mapping. Problems go to `errors` under their path; values are never
// quoted in messages, since tokens and keys live here. A null value counts as absent.
class Fields {
 public:
  Fields(const Json* object, FieldPath path, FieldErrors& errors)
      : object_(object), path_(std::move(path)), errors_(errors) {}

  FieldPath path(std::string_view key) const { return path_.child(key); }

  std::string string(std::string_view key) {
    const Json* v = find(key);
    if (v == nullptr) {
      return "";
    }
    if (!v->is_string()) {
      errors_.push_back({path(key).str(), "must be a string"});
      return "";
    }
    return v->get<std::string>();
  }

  bool boolean(std::string_view key) {
    const Json* v = find(key);
    if (v == nullptr) {
      return false;
    }
    if (!v->is_boolean()) {
      errors_.push_back({path(key).str(), "must be true or false"});
      return false;
    }
    return v->get<bool>();
  }

  const Json* object(std::string_view key) {
    const Json* v = find(key);
    if (v != nullptr && !v->is_object()) {
      errors_.push_back({path(key).str(), "must be a mapping"});
      return nullptr;
    }
    return v;
  }

  const Json* array(std::string_view key) {
    const Json* v = find(key);
    if (v != nullptr && !v->is_array()) {
      errors_.push_back({path(key).str(), "must be a list"});
      return nullptr;
    }
    return v;
  }

  bool has(std::string_view key) const { return find(key) != nullptr; }

 private:
  const Json* find(std::string_view key) const {
    if (object_ == nullptr) {
      return nullptr;
    }
    auto it = object_->find(key);
    if (it == object_->end() || it->is_null()) {
      return nullptr;
    }
    return &*it;
  }

  const Json* object_;
  FieldPath path_;
  FieldErrors& errors_;
};

struct ClusterEntry {
  std::string name;
  FieldPath path;  // clusters[i].cluster
  std::string server;
  std::string certificateAuthority;
  std::string certificateAuthorityData;
  bool insecureSkipTlsVerify = false;
  std::string tlsServerName;
};

struct UserEntry {
  std::string name;
  FieldPath path;  // users[i].user
  std::string token;
  std::string tokenFile;
  std::string clientCertificate;
  std::string clientCertificateData;
  std::string clientKey;
  std::string clientKeyData;
  std::optional<ExecConfig> exec;
  bool authProvider = false;
  bool basicAuth = false;
};

struct ContextEntry {
  std::string name;
  FieldPath path;  // contexts[i].context
  std::string cluster;
  std::string user;
};

// Walks a named list ("clusters", "users", "contexts"): each item is {name, <body>: {...}} with
// unique names. `read` gets the body's fields and the entry's index.
template <class Entry, class Read>
std::vector<Entry> namedList(Fields& root, std::string_view list, std::string_view body,
                             FieldErrors& errors, Read read) {
  std::vector<Entry> out;
  const Json* items = root.array(list);
  if (items == nullptr) {
    return out;
  }
  for (size_t i = 0; i < items->size(); ++i) {
    FieldPath at = root.path(list).index(i);
    const Json& item = (*items)[i];
    if (!item.is_object()) {
      errors.push_back({at.str(), "must be a mapping"});
      continue;
    }
    Fields fields(&item, at, errors);
    Entry entry;
    size_t before = errors.size();
    entry.name = fields.string("name");
    entry.path = at.child(body);
    if (entry.name.empty() && errors.size() == before) {
      errors.push_back({at.child("name").str(), api::fielderr::required()});
    }
    for (const Entry& seen : out) {
      if (!entry.name.empty() && seen.name == entry.name) {
        errors.push_back({at.child("name").str(), "duplicate name \"" + entry.name + "\""});
      }
    }
    Fields bodyFields(fields.object(body), entry.path, errors);
    read(bodyFields, entry);
    out.push_back(std::move(entry));
  }
  return out;
}

void readCluster(Fields& f, ClusterEntry& c) {
  c.server = f.string("server");
  c.certificateAuthority = f.string("certificate-authority");
  c.certificateAuthorityData = f.string("certificate-authority-data");
  c.insecureSkipTlsVerify = f.boolean("insecure-skip-tls-verify");
  c.tlsServerName = f.string("tls-server-name");
}

std::optional<ExecConfig> readExec(Fields& user, FieldErrors& errors) {
  const Json* object = user.object("exec");
  if (object == nullptr) {
    return std::nullopt;
  }
  Fields f(object, user.path("exec"), errors);
  ExecConfig exec;
  exec.apiVersion = f.string("apiVersion");
  exec.command = f.string("command");
  exec.installHint = f.string("installHint");
  exec.provideClusterInfo = f.boolean("provideClusterInfo");
  exec.interactiveMode = f.string("interactiveMode");
  if (const Json* args = f.array("args")) {
    for (size_t i = 0; i < args->size(); ++i) {
      if (!(*args)[i].is_string()) {
        errors.push_back({f.path("args").index(i).str(), "must be a string"});
        continue;
      }
      exec.args.push_back((*args)[i].get<std::string>());
    }
  }
  if (const Json* env = f.array("env")) {
    for (size_t i = 0; i < env->size(); ++i) {
      FieldPath at = f.path("env").index(i);
      if (!(*env)[i].is_object()) {
        errors.push_back({at.str(), "must be a mapping"});
        continue;
      }
      Fields var(&(*env)[i], at, errors);
      exec.env.emplace_back(var.string("name"), var.string("value"));
    }
  }
  return exec;
}

void readUser(Fields& f, UserEntry& u, FieldErrors& errors) {
  u.token = f.string("token");
  u.tokenFile = f.string("tokenFile");
  u.clientCertificate = f.string("client-certificate");
  u.clientCertificateData = f.string("client-certificate-data");
  u.clientKey = f.string("client-key");
  u.clientKeyData = f.string("client-key-data");
  u.exec = readExec(f, errors);
  u.authProvider = f.has("auth-provider");
  u.basicAuth = f.has("username") || f.has("password");
}

void readContext(Fields& f, ContextEntry& c) {
  c.cluster = f.string("cluster");
  c.user = f.string("user");
}

std::string resolvePath(const std::string& directory, const std::string& path) {
  if (path.empty() || directory.empty() || std::filesystem::path(path).is_absolute()) {
    return path;
  }
  return (std::filesystem::path(directory) / path).lexically_normal().string();
}

// The bytes of a "<field>-data" (base64) or "<field>" (a file) pair; data wins, as in
// client-go. Empty when neither is set.
std::string dataOrFile(const std::string& data, const std::string& file, const FieldPath& dataPath,
                       const FieldPath& filePath, const std::string& directory,
                       FieldErrors& errors) {
  if (!data.empty()) {
    api::corev1::Base64Result decoded = api::corev1::decodeBase64(data);
    if (decoded.errorOffset) {
      errors.push_back({dataPath.str(), "illegal base64 data at input byte " +
                                            std::to_string(*decoded.errorOffset)});
      return "";
    }
    return decoded.bytes;
  }
  if (file.empty()) {
    return "";
  }
  auto text = readLocalFile(resolvePath(directory, file));
  if (!text) {
    errors.push_back({filePath.str(), text.error().message()});
    return "";
  }
  return *text;
}

void resolveCluster(const ClusterEntry& c, const std::string& directory, RestConfig& out,
                    FieldErrors& errors) {
  FieldPath server = c.path.child("server");
  out.server = c.server;
  while (out.server.ends_with('/')) {
    out.server.pop_back();
  }
  if (out.server.empty()) {
    errors.push_back({server.str(), api::fielderr::required()});
  } else if (out.server.find("://") == std::string::npos) {
    out.server = "https://" + out.server;  // client-go's default scheme for "host:port"
  } else if (!out.server.starts_with("https://") && !out.server.starts_with("http://")) {
    errors.push_back({server.str(), "must be an http or https URL"});
  }
  out.caPem = dataOrFile(c.certificateAuthorityData, c.certificateAuthority,
                         c.path.child("certificate-authority-data"),
                         c.path.child("certificate-authority"), directory, errors);
  out.insecureSkipTlsVerify = c.insecureSkipTlsVerify;
  if (out.insecureSkipTlsVerify && !out.caPem.empty()) {
    // client-go's transport refuses the pair: a CA that is then ignored is surely a mistake.
    errors.push_back({c.path.child("insecure-skip-tls-verify").str(),
                      "cannot be combined with a certificate authority"});
  }
  out.tlsServerName = c.tlsServerName;
}

void resolveExec(const UserEntry& u, const std::string& directory, RestConfig& out,
                 FieldErrors& errors) {
  ExecConfig exec = *u.exec;
  FieldPath at = u.path.child("exec");
  if (exec.command.empty()) {
    errors.push_back({at.child("command").str(), api::fielderr::required()});
  }
  // Like client-go, only a command with a path separator is a file; a bare name is on PATH.
  if (exec.command.find('/') != std::string::npos) {
    exec.command = resolvePath(directory, exec.command);
  }
  if (exec.apiVersion.empty()) {
    errors.push_back({at.child("apiVersion").str(), api::fielderr::required()});
  } else if (exec.apiVersion != kExecV1 && exec.apiVersion != kExecV1beta1) {
    errors.push_back(
        {at.child("apiVersion").str(),
         api::fielderr::unsupported(Json(exec.apiVersion),
                                    {std::string(kExecV1), std::string(kExecV1beta1)})});
  }
  if (exec.interactiveMode.empty()) {
    if (exec.apiVersion == kExecV1) {
      errors.push_back({at.child("interactiveMode").str(), api::fielderr::required()});
    }
    exec.interactiveMode = "IfAvailable";  // v1beta1's default
  } else if (exec.interactiveMode != "Never" && exec.interactiveMode != "IfAvailable" &&
             exec.interactiveMode != "Always") {
    errors.push_back({at.child("interactiveMode").str(),
                      api::fielderr::unsupported(Json(exec.interactiveMode),
                                                 {"Never", "IfAvailable", "Always"})});
  }
  for (size_t i = 0; i < exec.env.size(); ++i) {
    if (exec.env[i].first.empty()) {
      errors.push_back({at.child("env").index(i).child("name").str(), api::fielderr::required()});
    }
  }
  out.exec = std::move(exec);
}

void resolveUser(const UserEntry& u, const std::string& directory, RestConfig& out,
                 FieldErrors& errors) {
  if (u.authProvider) {
    errors.push_back({u.path.child("auth-provider").str(),
                      "auth providers are not supported; use an exec credential plugin"});
  }
  if (u.basicAuth) {
    errors.push_back({u.path.child("username").str(), "basic authentication is not supported"});
  }
  if (!u.clientCertificate.empty() && !u.clientCertificateData.empty()) {
    errors.push_back({u.path.child("client-certificate-data").str(),
                      "cannot be combined with client-certificate"});
  }
  if (!u.clientKey.empty() && !u.clientKeyData.empty()) {
    errors.push_back({u.path.child("client-key-data").str(), "cannot be combined with client-key"});
  }
  out.clientCertificatePem = dataOrFile(u.clientCertificateData, u.clientCertificate,
                                        u.path.child("client-certificate-data"),
                                        u.path.child("client-certificate"), directory, errors);
  out.clientKeyPem = dataOrFile(u.clientKeyData, u.clientKey, u.path.child("client-key-data"),
                                u.path.child("client-key"), directory, errors);
  bool hasCert = !u.clientCertificate.empty() || !u.clientCertificateData.empty();
  bool hasKey = !u.clientKey.empty() || !u.clientKeyData.empty();
  if (hasCert && !hasKey) {
    errors.push_back({u.path.child("client-key").str(),
                      "Required value: client-certificate needs a client-key or client-key-data"});
  } else if (hasKey && !hasCert) {
    errors.push_back(
        {u.path.child("client-certificate").str(),
         "Required value: client-key needs a client-certificate or client-certificate-data"});
  }
  out.bearerToken = u.token;
  if (!u.tokenFile.empty()) {
    out.bearerTokenFile = resolvePath(directory, u.tokenFile);
    // As client-go: a static token serves until the file is first read; without one, the file
    // must be readable now.
    if (out.bearerToken.empty()) {
      auto text = readLocalFile(out.bearerTokenFile);
      if (!text) {
        errors.push_back({u.path.child("tokenFile").str(), text.error().message()});
      } else {
        out.bearerToken = trimSpace(*text);
      }
    }
  }
  if (u.exec) {
    resolveExec(u, directory, out, errors);
  }
}

std::string joined(const FieldErrors& errors) {
  std::string out;
  for (const FieldError& e : errors) {
    if (!out.empty()) {
      out += "; ";
    }
    out += e.toString();
  }
  return out;
}

template <class Entry>
const Entry* named(const std::vector<Entry>& entries, const std::string& name) {
  for (const Entry& e : entries) {
    if (e.name == name) {
      return &e;
    }
  }
  return nullptr;
}

}  // namespace

core::Result<RestConfig> parseKubeconfig(const std::string& text, const std::string& directory,
                                         const KubeconfigOptions& options) {
  auto docs = api::parseDocuments(text);
  if (!docs) {
    return core::fail(docs.error());
  }
  if (docs->empty()) {
    return core::fail(core::Error::invalid("no configuration in the file"));
  }
  if (docs->size() > 1) {
    return core::fail(core::Error::invalid("holds " + std::to_string(docs->size()) +
                                           " YAML documents; a kubeconfig is one"));
  }
  const api::Document& doc = docs->front();
  FieldErrors errors = doc.errors;
  if (!doc.value.is_object()) {
    return core::fail(core::Error::invalid("must be a mapping"));
  }
  Fields root(&doc.value, FieldPath(), errors);
  auto clusters = namedList<ClusterEntry>(root, "clusters", "cluster", errors,
                                          [](Fields& f, ClusterEntry& c) { readCluster(f, c); });
  auto users = namedList<UserEntry>(root, "users", "user", errors,
                                    [&](Fields& f, UserEntry& u) { readUser(f, u, errors); });
  auto contexts = namedList<ContextEntry>(root, "contexts", "context", errors,
                                          [](Fields& f, ContextEntry& c) { readContext(f, c); });
  std::string current = root.string("current-context");
  if (!errors.empty()) {
    return core::fail(core::Error::invalid(joined(errors)));
  }

  std::string contextName = options.context.empty() ? current : options.context;
  if (contextName.empty()) {
    return core::fail(core::Error::invalid("current-context: not set, and no context was chosen"));
  }
  const ContextEntry* context = named(contexts, contextName);
  if (context == nullptr) {
    std::string where = options.context.empty() ? "current-context: " : "";
    return core::fail(core::Error::notFound(where + "context \"" + contextName + "\" not found"));
  }
  RestConfig out;
  if (context->cluster.empty()) {
    errors.push_back({context->path.child("cluster").str(), api::fielderr::required()});
  } else if (const ClusterEntry* cluster = named(clusters, context->cluster)) {
    resolveCluster(*cluster, directory, out, errors);
  } else {
    errors.push_back(
        {context->path.child("cluster").str(), "cluster \"" + context->cluster + "\" not found"});
  }
  // No user is allowed: the requests are then anonymous.
  if (!context->user.empty()) {
    if (const UserEntry* user = named(users, context->user)) {
      resolveUser(*user, directory, out, errors);
    } else {
      errors.push_back(
          {context->path.child("user").str(), "user \"" + context->user + "\" not found"});
    }
  }
  if (!errors.empty()) {
    return core::fail(core::Error::invalid(joined(errors)));
  }
  out.source = std::string(kSourcePrefix) + "context " + contextName;
  return out;
}

core::Result<RestConfig> loadKubeconfig(const std::string& path, const KubeconfigOptions& options) {
  auto text = readLocalFile(path);
  if (!text) {
    return core::fail(text.error().wrap("reading kubeconfig"));
  }
  std::error_code ec;
  std::filesystem::path absolute = std::filesystem::absolute(path, ec);
  std::string directory = ec ? "" : absolute.parent_path().string();
  auto config = parseKubeconfig(*text, directory, options);
  if (!config) {
    return core::fail(config.error().wrap("kubeconfig " + path));
  }
  // "kubeconfig context x" becomes "kubeconfig /path context x".
  config->source.insert(kSourcePrefix.size(), path + " ");
  return config;
}

core::Result<RestConfig> loadConfig(const std::string& explicitPath,
                                    const KubeconfigOptions& options) {
  if (!explicitPath.empty()) {
    return loadKubeconfig(explicitPath, options);
  }
  if (const char* list = std::getenv("KUBECONFIG"); list != nullptr && *list != '\0') {
    std::string_view rest = list;
    while (!rest.empty()) {
      size_t colon = rest.find(':');
      std::string entry(rest.substr(0, colon));
      rest = colon == std::string_view::npos ? std::string_view() : rest.substr(colon + 1);
      std::error_code ec;
      if (!entry.empty() && std::filesystem::exists(entry, ec)) {
        return loadKubeconfig(entry, options);
      }
    }
    return core::fail(
        core::Error::notFound(std::string("KUBECONFIG=") + list + ": none of its files exists"));
  }
  if (const char* host = std::getenv("KUBERNETES_SERVICE_HOST"); host != nullptr && *host) {
    return inClusterConfig();
  }
  const char* home = std::getenv("HOME");
  std::string fallback = home != nullptr && *home ? std::string(home) + "/.kube/config" : "";
  std::error_code ec;
  if (fallback.empty() || !std::filesystem::exists(fallback, ec)) {
    return core::fail(core::Error::notFound(
        "no client configuration: pass a kubeconfig, set KUBECONFIG, run in a cluster or write "
        "~/.kube/config"));
  }
  return loadKubeconfig(fallback, options);
}

}  // namespace nodewright::kube
