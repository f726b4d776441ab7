#pragma once

#include <atomic>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>

#include "aws/sigv4.h"
#include "core/clock.h"
#include "core/error.h"
#include "emulators/ec2/action.h"
#include "emulators/ec2/catalog.h"
#include "emulators/ec2/interruptions.h"
#include "emulators/ec2/sqs_queues.h"
#include "emulators/ec2/world.h"
#include "emulators/engine/engine.h"
#include "emulators/engine/state_saver.h"
#include "http/server.h"

// `nodewright emulate ec2`: EC2's Query protocol (Version 2016-11-15) and SSM's parameters
// over HTTP, on the simulated-cloud engine. Requests must be signed with SigV4 by a configured
// access key; errors use EC2's XML shape with Code, Message and RequestID.
namespace nodewright::emulators::ec2 {

// EC2's usual durations (emulated time): an instance runs ~10 s after launch, terminates
// ~30 s after TerminateInstances. The fault configuration can force others.
std::map<std::string, Latency, std::less<>> defaultLatencies();

struct Ec2EmulatorOptions {
  // Access key id -> secret access key.
  std::map<std::string, std::string, std::less<>> credentials{{"nodewright", "nodewright"}};
  EngineOptions engine;
  std::map<std::string, Latency, std::less<>> latencies = defaultLatencies();
  Catalog catalog = builtinCatalog();
  WorldConfig world = defaultWorld();
  size_t maxBodyBytes = 4 * 1024 * 1024;
  // Where the emulator keeps its state across restarts (state.h); empty: in memory only. An
  // existing file is restored at start (a file that cannot be used fails the start and is left
  // as it is); the server saves it about a second after changes and once more on stop().
  std::string stateFile{};
  // The interruptions fault at start (interruptions.h); PUT /admin/faults replaces it.
  std::optional<InterruptionFault> interruptions{};
};

// Thread-safe: the HTTP server calls serve() from one thread per connection.
class Ec2Emulator {
 public:
  static core::Result<std::unique_ptr<Ec2Emulator>> create(const core::Clock& clock,
                                                           Ec2EmulatorOptions options);

  http::Response serve(const http::Request& request);
  // The 413 for a body over maxBodyBytes, in EC2's error shape.
  http::Response tooLarge(size_t limit) const;

  Engine& engine() { return engine_; }
  // Not while an SSM PutParameter runs: it changes the world's parameters.
  const World& world() const { return world_; }
  const Catalog& catalog() const { return catalog_; }
  const Ec2EmulatorOptions& options() const { return options_; }
  // The SQS queues (sqs.h) this endpoint serves beside EC2; in memory only, not in the state
  // file (a restart loses queued messages, as a restarted emulator's clients would expect).
  SqsQueues& sqs() { return sqs_; }
  // Carries out the interruptions fault; its thread runs while an Ec2Server serves.
  Interrupter& interrupter() { return interrupter_; }

  // The document a state file holds (state.h), as of now.
  core::Result<api::Json> saveState();
  // Replaces the stored resources and SSM parameters with saved ones and continues emulated
  // time from when they were saved. Invalid, with what is wrong, when the document is
  // malformed; the emulator is then unchanged. Call before serving.
  core::Status restoreState(const api::Json& state);
  // Moves whenever saveState() would give a different document (not as time alone passes).
  uint64_t stateGeneration();

 private:
  Ec2Emulator(const core::Clock& clock, Ec2EmulatorOptions options);

  // The signer of a request to `service` ("ec2", "ssm"), or the SigV4 error to send.
  aws::ApiResult<aws::sigv4::Identity> authenticate(const http::Request& request,
                                                    std::string_view service) const;
  http::Response serveEc2(const http::Request& request, const std::string& requestId);
  http::Response serveSsmRequest(const http::Request& request, const std::string& requestId);
  // /admin/faults with the interruptions fault: the engine's faults go to the engine, the
  // "interruptions" key to the interrupter.
  http::Response serveAdminFaults(const http::Request& request);
  http::Response serveSqsRequest(const http::Request& request, const std::string& requestId,
                                 bool json);
  std::string nextRequestId();

  const core::Clock& clock_;
  Ec2EmulatorOptions options_;
  Engine engine_;
  Catalog catalog_;
  World world_;
  std::mutex ssmMu_;  // guards world_.ssmParameters and ssmVersions for SSM requests
  std::atomic<uint64_t> ssmChanges_{0};
  ActionTable actions_;
  SqsQueues sqs_;
  Interrupter interrupter_{*this};  // last: its thread uses the members above
};

// An emulator behind an HTTP server on a loopback port, for `nodewright emulate ec2`, tests and
// benchmarks.
class Ec2Server {
 public:
  static core::Result<std::unique_ptr<Ec2Server>> start(const core::Clock& clock,
                                                        Ec2EmulatorOptions options,
                                                        std::string host = "127.0.0.1",
                                                        uint16_t port = 0);
  ~Ec2Server();

  std::string url() const;  // "http://127.0.0.1:PORT"
  uint16_t port() const { return server_->port(); }
  Ec2Emulator& emulator() { return *emulator_; }
  // Stops serving, then saves the state file one last time (errors are logged). Idempotent.
  void stop();

 private:
  Ec2Server(std::unique_ptr<Ec2Emulator> emulator, std::string host);

  std::unique_ptr<Ec2Emulator> emulator_;
  std::unique_ptr<http::Server> server_;
  std::unique_ptr<StateSaver> saver_;  // set when the options name a state file
  std::string host_;
};

}  // namespace nodewright::emulators::ec2
