#pragma once

#include <algorithm>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "api/yaml.h"
#include "apiserver/api_server.h"
#include "support/apiserver/process.h"

// What the deploy/ tests share: rendering an overlay with `kubectl kustomize`, the RBAC rules it
// binds to the controller's ServiceAccount, and the API server's request log to check them
// against. RBAC matching follows the Kubernetes authorizer: a request is allowed when one rule
// of a Role bound in its namespace, or of a ClusterRole bound cluster-wide, matches its API
// group, resource (with "/subresource"), verb and, when the rule lists names, its name.
namespace nodewright::e2e::deploy {

// API server options that log every request to `path`, as JSON lines.
inline apiserver::ApiServerOptions loggingTo(const std::string& path) {
  apiserver::ApiServerOptions options;
  options.requestLog = path;
  return options;
}

inline std::string deployDir(const std::string& relative) {
  return std::string(NW_SOURCE_DIR) + "/deploy/" + relative;
}

// The documents `kubectl kustomize deploy/<relative>` prints; an empty list (and a test failure)
// when it cannot render.
inline std::vector<api::Json> render(const std::string& relative) {
  auto ran = apiserver::testing::runProcess({"kubectl", "kustomize", deployDir(relative)});
  EXPECT_EQ(ran.code, 0) << "kubectl kustomize deploy/" << relative << ": " << ran.err;
  if (ran.code != 0) {
    return {};
  }
  auto documents = api::parseDocuments(ran.out);
  EXPECT_TRUE(documents) << documents.error().message();
  std::vector<api::Json> out;
  for (const api::Document& document : documents.value_or(std::vector<api::Document>{})) {
    out.push_back(document.value);
  }
  return out;
}

inline std::vector<std::string> strings(const api::Json& object, const char* key) {
  std::vector<std::string> out;
  if (object.is_object() && object.contains(key) && object.at(key).is_array()) {
    for (const api::Json& item : object.at(key)) {
      out.push_back(item.get<std::string>());
    }
  }
  return out;
}

inline std::string text(const api::Json& object, const char* key) {
  return object.is_object() && object.contains(key) && object.at(key).is_string()
             ? object.at(key).get<std::string>()
             : std::string();
}

struct Rule {
  std::vector<std::string> apiGroups;
  std::vector<std::string> resources;
  std::vector<std::string> verbs;
  std::vector<std::string> resourceNames;
};

// The rules of one bound role; `ns` empty when they apply cluster-wide.
struct Grant {
  std::string role;
  std::string ns;
  std::vector<Rule> rules;
};

// One request the API server logged, its verb in RBAC terms (get, list, watch, create...).
struct Request {
  std::string verb;
  std::string apiGroup;
  std::string resource;  // "pods/eviction" with its subresource
  std::string ns;
  std::string name;
  std::string userAgent;
  std::string path;  // non-resource requests only
};

inline std::string describe(const Request& r) {
  if (r.resource.empty()) {
    return fmt::format("{} {}", r.verb, r.path);
  }
  return fmt::format("{} {}/{}{}", r.verb, r.apiGroup.empty() ? "core" : r.apiGroup, r.resource,
                     r.ns.empty() ? "" : " in " + r.ns);
}

inline const api::Json* find(const std::vector<api::Json>& docs, const std::string& kind,
                             const std::string& name, const std::string& ns) {
  for (const api::Json& doc : docs) {
    const api::Json& meta = doc.value("metadata", api::Json::object());
    if (text(doc, "kind") == kind && text(meta, "name") == name && text(meta, "namespace") == ns) {
      return &doc;
    }
  }
  return nullptr;
}

inline std::vector<Rule> rulesOf(const api::Json& role) {
  std::vector<Rule> rules;
  for (const api::Json& r : role.value("rules", api::Json::array())) {
    rules.push_back({strings(r, "apiGroups"), strings(r, "resources"), strings(r, "verbs"),
                     strings(r, "resourceNames")});
  }
  return rules;
}

// Every role the rendered manifests bind to ServiceAccount `ns`/`name`.
inline std::vector<Grant> grantsFor(const std::vector<api::Json>& docs, const std::string& ns,
                                    const std::string& name) {
  std::vector<Grant> grants;
  for (const api::Json& binding : docs) {
    const std::string kind = text(binding, "kind");
    if (kind != "ClusterRoleBinding" && kind != "RoleBinding") {
      continue;
    }
    const api::Json subjects = binding.value("subjects", api::Json::array());
    const bool subject = std::any_of(subjects.begin(), subjects.end(), [&](const api::Json& s) {
      return text(s, "kind") == "ServiceAccount" && text(s, "name") == name &&
             text(s, "namespace") == ns;
    });
    if (!subject) {
      continue;
    }
    const std::string bindingNs = text(binding.value("metadata", api::Json::object()), "namespace");
    const api::Json& ref = binding.value("roleRef", api::Json::object());
    const std::string roleNs = text(ref, "kind") == "Role" ? bindingNs : "";
    const api::Json* role = find(docs, text(ref, "kind"), text(ref, "name"), roleNs);
    EXPECT_NE(role, nullptr) << kind << " refers to a missing " << text(ref, "kind") << " "
                             << text(ref, "name");
    if (role != nullptr) {
      grants.push_back({text(ref, "name"), bindingNs, rulesOf(*role)});
    }
  }
  return grants;
}

inline bool has(const std::vector<std::string>& values, const std::string& value) {
  return std::find(values.begin(), values.end(), value) != values.end() ||
         std::find(values.begin(), values.end(), "*") != values.end();
}

inline bool matches(const Rule& rule, const Request& request) {
  if (!has(rule.verbs, request.verb) || !has(rule.apiGroups, request.apiGroup)) {
    return false;
  }
  const size_t slash = request.resource.find('/');
  const bool resource = has(rule.resources, request.resource) ||
                        (slash != std::string::npos &&
                         has(rule.resources, "*/" + request.resource.substr(slash + 1)));
  if (!resource) {
    return false;
  }
  return rule.resourceNames.empty() ||
         (!request.name.empty() && has(rule.resourceNames, request.name));
}

inline bool allowed(const std::vector<Grant>& grants, const Request& request) {
  return std::any_of(grants.begin(), grants.end(), [&](const Grant& grant) {
    if (!grant.ns.empty() && grant.ns != request.ns) {
      return false;
    }
    return std::any_of(grant.rules.begin(), grant.rules.end(),
                       [&](const Rule& rule) { return matches(rule, request); });
  });
}

// Whether `userAgent` is `product` alone or `product/version ...`.
inline bool agentIs(const std::string& userAgent, const std::string& product) {
  return userAgent == product || userAgent.rfind(product + "/", 0) == 0 ||
         userAgent.rfind(product + " ", 0) == 0;
}

// The requests in the JSON-lines log at `path` made by user agent `product`.
inline std::vector<Request> loggedRequests(const std::string& path, const std::string& product) {
  std::ifstream in(path);
  EXPECT_TRUE(in.good()) << "no request log at " << path;
  std::vector<Request> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) {
      continue;
    }
    api::Json entry = api::Json::parse(line, nullptr, false);
    EXPECT_FALSE(entry.is_discarded()) << "not JSON: " << line;
    if (entry.is_discarded() || !agentIs(text(entry, "userAgent"), product)) {
      continue;
    }
    Request r;
    r.name = text(entry, "name");
    r.verb = text(entry, "verb");  // RBAC's verb: get, list, watch, create...
    r.apiGroup = text(entry, "apiGroup");
    r.resource = text(entry, "resource");
    if (!text(entry, "subresource").empty()) {
      r.resource += "/" + text(entry, "subresource");
    }
    r.ns = text(entry, "namespace");
    r.userAgent = text(entry, "userAgent");
    r.path = r.resource.empty() ? text(entry, "path") : "";
    out.push_back(std::move(r));
  }
  return out;
}

// The distinct requests (verb, group, resource, namespace) no grant allows.
inline std::set<std::string> uncovered(const std::vector<Grant>& grants,
                                       const std::vector<Request>& requests) {
  std::set<std::string> out;
  for (const Request& r : requests) {
    if (r.resource.empty()) {
      continue;  // discovery and other non-resource URLs: system:discovery allows them
    }
    if (!allowed(grants, r)) {
      out.insert(describe(r));
    }
  }
  return out;
}

// Distinct (verb, group/resource) pairs among `requests`.
inline std::set<std::string> verbResourcePairs(const std::vector<Request>& requests) {
  std::set<std::string> out;
  for (const Request& r : requests) {
    if (!r.resource.empty()) {
      out.insert(r.verb + " " + (r.apiGroup.empty() ? "core" : r.apiGroup) + "/" + r.resource);
    }
  }
  return out;
}

}  // namespace nodewright::e2e::deploy
