#include "apiserver/api_server.h"

#include <filesystem>

#include <spdlog/spdlog.h>

#include "api/crd/generate.h"
#include "apiserver/authentication.h"
#include "apiserver/data_dir.h"
#include "apiserver/gc/collector.h"
#include "apiserver/pki/credentials.h"
#include "apiserver/request_log.h"
#include "apiserver/rest/handler.h"
#include "apiserver/rest/object_meta.h"
#include "http/server.h"

namespace nodewright::apiserver {
namespace {

using api::Json;

class EmbeddedApiServer : public ApiServer {
 public:
  EmbeddedApiServer(const ApiServerOptions& options, const core::Clock& clock)
      : options_(options),
        clock_(clock),
        resources_(api::builtinRegistry()),
        inFlight_(options.inFlight) {}

  ~EmbeddedApiServer() override { stop(); }

  core::Status start() {
    if (auto prepared = prepareDataDir(options_.dataDir); !prepared) {
      return prepared;
    }
    if (!options_.requestLog.empty()) {
      auto log = RequestLog::open(options_.requestLog, clock_);
      if (!log) {
        return core::fail(log.error());
      }
      requestLog_ = std::move(*log);
    }
    auto credentials = pki::loadOrCreate(options_.dataDir);
    if (!credentials) {
      return core::fail(credentials.error());
    }
    storage::StoreOptions storeOptions;
    storeOptions.historySize = options_.watchHistory;
    storeOptions.fsync = options_.fsync;
    auto store = storage::openSqliteStore(
        (std::filesystem::path(options_.dataDir) / kStoreFile).string(), storeOptions);
    if (!store) {
      return core::fail(store.error().wrap("opening the object store"));
    }
    store_ = std::move(*store);
    rest::HandlerOptions handlerOptions;
    handlerOptions.token = credentials->token;
    handlerOptions.bookmarkInterval = options_.bookmarkInterval;
    handler_ = std::make_unique<rest::Handler>(resources_, *store_, clock_, api::builtinRegistry(),
                                               handlerOptions);
    if (auto s = bootstrap(); !s) {
      return s;
    }
    collector_ = std::make_unique<gc::Collector>(handler_->objects());
    collector_->start();
    http::ServerOptions serverOptions;
    serverOptions.host = options_.host;
    serverOptions.port = options_.port;
    serverOptions.certificatePem = credentials->servingCertificatePem;
    serverOptions.privateKeyPem = credentials->servingKeyPem;
    serverOptions.tooLarge = [](size_t limit) { return errors::tooLarge(limit).toResponse(); };
    // Connection timeouts are about real peers: they run on the system clock even when the
    // API's clock is simulated or scaled (`up --time-scale`).
    serverOptions.limits = options_.connections;
    serverOptions.admit = [this, token = credentials->token](const http::Request& head) {
      return admit(head, token);
    };
    http::Handler handle = [this](const http::Request& r, http::Exchange& e) {
      handler_->handle(r, e);
    };
    if (requestLog_) {
      handle = [this, next = std::move(handle)](const http::Request& r, http::Exchange& e) {
        requestLog_->serve(r, e, next);
      };
    }
    auto server = http::startServer(serverOptions, std::move(handle));
    if (!server) {
      return core::fail(server.error());
    }
    server_ = std::move(*server);
    return pki::writePrivateFile(kubeconfigPath(), pki::kubeconfig(*credentials, url()));
  }

  uint16_t port() const override { return server_ ? server_->port() : 0; }
  std::string url() const override {
    std::string host =
        options_.host.find(':') != std::string::npos ? "[" + options_.host + "]" : options_.host;
    return "https://" + host + ":" + std::to_string(port());
  }
  std::string kubeconfigPath() const override {
    return (std::filesystem::path(options_.dataDir) / kKubeconfigFile).string();
  }

  void stop() override {
    if (stopped_) {
      return;
    }
    stopped_ = true;
    if (handler_) {
      handler_->stop();
    }
    if (store_) {
      store_->close();
    }
    if (server_) {
      server_->stop();
    }
    if (collector_) {
      collector_->stop();
    }
  }

 private:
  // What a fresh cluster has: the system namespaces and the CRDs of every nodewright kind.
  // Stored CRDs of other groups are served again after a restart.
  core::Status bootstrap() {
    rest::Objects& objects = handler_->objects();
    auto namespaces = resources_.find("", "v1", "namespaces");
    for (const char* name : {"default", "kube-system", "kube-public", "kube-node-lease"}) {
      Json ns = {{"apiVersion", "v1"}, {"kind", "Namespace"}, {"metadata", {{"name", name}}}};
      auto created = objects.create(*namespaces, "", ns, {});
      if (!created && created.error().code != 409) {
        return core::fail(core::Error::internal("creating namespace " + std::string(name) + ": " +
                                                created.error().message));
      }
    }
    auto crds = resources_.find("apiextensions.k8s.io", "v1", "customresourcedefinitions");
    for (auto& crd : api::crd::generateCrds(api::builtinRegistry())) {
      auto created = objects.create(*crds, "", crd, {});
      if (!created && created.error().code != 409) {
        return core::fail(core::Error::internal("creating CRD " + rest::meta::name(crd) + ": " +
                                                created.error().message));
      }
    }
    for (const auto& item : store_->list(rest::storagePrefix(*crds, ""), "", 0).items) {
      resources_.addCustom(*item->object);
    }
    return core::ok();
  }

  // Kube's filter order: authentication, then max-in-flight; both before the body is read.
  // Refusals are logged as kube's audit records failed authentication.
  http::Admission admit(const http::Request& head, const std::string& token) {
    http::Admission admission;
    if (isHealthPath(head.path)) {
      return admission;
    }
    if (!authenticated(head, token)) {
      admission.refusal = errors::unauthorized().toResponse();
    } else {
      admission = inFlight_.admit(head);
    }
    if (admission.refusal && requestLog_) {
      RequestRecord record = describeRequest(head);
      record.code = admission.refusal->status;
      requestLog_->append(record);
    }
    return admission;
  }

  ApiServerOptions options_;
  const core::Clock& clock_;
  ResourceTable resources_;
  MaxInFlight inFlight_;
  // Outlives the HTTP server, whose connection threads append to it.
  RequestLogPtr requestLog_;
  std::unique_ptr<storage::Store> store_;
  std::unique_ptr<rest::Handler> handler_;
  std::unique_ptr<gc::Collector> collector_;
  std::unique_ptr<http::Server> server_;
  bool stopped_ = false;
};

}  // namespace

core::Result<std::unique_ptr<ApiServer>> startApiServer(const ApiServerOptions& options,
                                                        const core::Clock& clock) {
  auto server = std::make_unique<EmbeddedApiServer>(options, clock);
  if (auto s = server->start(); !s) {
    return core::fail(s.error());
  }
  return std::unique_ptr<ApiServer>(std::move(server));
}

}  // namespace nodewright::apiserver
