#pragma once

// Shared pieces of the kubectl suites: one embedded API server per suite, kubectl runners that
// report what kubectl printed when they fail, and a subset comparison of objects.

#include <chrono>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "api/reflect/json.h"
#include "support/apiserver/test_server.h"

namespace nodewright::apiserver::testing {

using api::Json;
using namespace std::chrono_literals;

inline std::string describeRun(const std::vector<std::string>& args, const Ran& ran) {
  std::string line = "kubectl";
  for (const auto& a : args) {
    line += " " + a;
  }
  return line + "\nexit " + std::to_string(ran.code) + "\nstdout:\n" + ran.out + "\nstderr:\n" +
         ran.err;
}

// Paths where `actual` lacks or differs from a value of `expected`: the server may add fields
// (defaults, metadata) but must keep every field it was given. Lists must match element-wise.
inline void subsetDifferences(const Json& expected, const Json& actual, const std::string& path,
                              std::vector<std::string>& out) {
  if (expected.is_object()) {
    if (!actual.is_object()) {
      out.push_back(path + ": expected an object, got " + actual.dump());
      return;
    }
    for (const auto& [key, value] : expected.items()) {
      auto it = actual.find(key);
      if (it == actual.end()) {
        out.push_back(path + "." + key + ": missing (expected " + value.dump() + ")");
      } else {
        subsetDifferences(value, *it, path + "." + key, out);
      }
    }
  } else if (expected.is_array()) {
    if (!actual.is_array() || actual.size() != expected.size()) {
      out.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
      return;
    }
    for (size_t i = 0; i < expected.size(); ++i) {
      subsetDifferences(expected[i], actual[i], path + "[" + std::to_string(i) + "]", out);
    }
  } else if (expected != actual) {
    out.push_back(path + ": expected " + expected.dump() + ", got " + actual.dump());
  }
}

inline std::vector<std::string> subsetDifferences(const Json& expected, const Json& actual) {
  std::vector<std::string> out;
  subsetDifferences(expected, actual, "", out);
  return out;
}

// The objects of kubectl output: a List's items, or the one object kubectl printed alone.
inline Json objectsOf(const Json& printed) {
  if (printed.is_object() && printed.contains("items") && printed["items"].is_array()) {
    return printed["items"];
  }
  return Json::array({printed});
}

// A fixture base whose suite shares one server: each Suite type gets its own.
template <class Suite>
class KubectlSuite : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    ApiServerOptions options;
    // Durability is not under test here; skipping fsync keeps the suites fast on busy disks.
    options.fsync = false;
    server_ = new TestApiServer(options);
  }
  static void TearDownTestSuite() {
    delete server_;
    server_ = nullptr;
  }

  static TestApiServer& server() { return *server_; }

  static Ran run(const std::vector<std::string>& args, const std::string& input = "") {
    return kubectl(*server_, args, input);
  }

  // Runs kubectl expecting success; returns its stdout.
  static std::string ok(const std::vector<std::string>& args, const std::string& input = "") {
    Ran ran = run(args, input);
    EXPECT_EQ(ran.code, 0) << describeRun(args, ran);
    return ran.out;
  }

  // Runs kubectl expecting failure; returns its stderr.
  static std::string fails(const std::vector<std::string>& args, const std::string& input = "") {
    Ran ran = run(args, input);
    EXPECT_NE(ran.code, 0) << describeRun(args, ran);
    return ran.err;
  }

  // `kubectl get ARGS -o json`, parsed; null when kubectl fails.
  static Json getJson(std::vector<std::string> args) {
    args.insert(args.begin(), "get");
    args.insert(args.end(), {"-o", "json"});
    Ran ran = run(args);
    if (ran.code != 0) {
      ADD_FAILURE() << describeRun(args, ran);
      return nullptr;
    }
    Json parsed = Json::parse(ran.out, nullptr, false);
    if (parsed.is_discarded()) {
      ADD_FAILURE() << "not JSON: " << ran.out;
    }
    return parsed;
  }

  // Whether `kubectl get ARGS` finds the object (exit 0) rather than NotFound.
  static bool exists(std::vector<std::string> args) {
    args.insert(args.begin(), "get");
    args.insert(args.end(), {"-o", "name"});
    Ran ran = run(args);
    if (ran.code != 0 && ran.err.find("NotFound") == std::string::npos) {
      ADD_FAILURE() << describeRun(args, ran);
    }
    return ran.code == 0;
  }

  // Creates a namespace with kubectl apply (so it works whatever `kubectl create namespace`
  // does) and returns its name.
  static std::string makeNamespace(const std::string& name) {
    ok({"apply", "-f", "-"},
       Json{{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}}.dump());
    return name;
  }

  // argv for a long-running kubectl (get -w, wait) against this suite's server.
  static std::vector<std::string> command(const std::vector<std::string>& args) {
    std::vector<std::string> argv = {"kubectl", "--kubeconfig", server_->kubeconfig(),
                                     "--cache-dir", server_->dataDir() + "/kubecache"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }

  // A shell pipeline that runs kubectl ARGS with client logs at -v=6 and prints only the
  // lines' `markers` (grep -o), one a line: lets a test see that a watch has started without
  // sleeping.
  static std::vector<std::string> markedCommand(const std::vector<std::string>& args,
                                                const std::vector<std::string>& markers) {
    std::string line;
    for (const auto& a : command(args)) {
      line += "'" + a + "' ";
    }
    line += "-v=6 2>&1 | grep --line-buffered -o";
    for (const auto& m : markers) {
      line += " -e '" + m + "'";
    }
    return {"sh", "-c", line};
  }

  static inline TestApiServer* server_ = nullptr;
};

}  // namespace nodewright::apiserver::testing
