#pragma once

#include <sys/types.h>

#include <string>

// moto's server (Python moto, the second real AWS peer of the tests) in a child process.
namespace nodewright::aws::testing {

// Starts `python3 -c ThreadedMotoServer` on 127.0.0.1 with a port from the OS, in its own
// process group with awsClientEnvironment() (key nodewright/nodewright, region us-east-1).
// The group is killed when this goes; the child also exits by itself when its stdin (our pipe)
// closes. Construction waits, bounded, for the port moto prints.
class MotoServer {
 public:
  MotoServer();
  ~MotoServer();
  MotoServer(const MotoServer&) = delete;
  MotoServer& operator=(const MotoServer&) = delete;

  // "http://127.0.0.1:PORT"; meaningless unless error() is empty.
  std::string url() const { return "http://127.0.0.1:" + std::to_string(port_); }
  // Why the server did not start; empty when it runs.
  const std::string& error() const { return error_; }

 private:
  pid_t pid_ = -1;
  int stdin_ = -1;
  int stdout_ = -1;
  int port_ = 0;
  std::string error_;
};

}  // namespace nodewright::aws::testing
