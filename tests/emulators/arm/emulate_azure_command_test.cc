// `nodewright emulate azure` as a user runs it: the binary prints where it listens and where the
// CA is, serves HTTPS that the CA verifies, and stops cleanly on SIGTERM.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "emulators/arm/arm_fixture.h"

namespace nodewright::emulators::arm {
namespace {

using namespace std::chrono_literals;
using testing::HttpsClient;
using testing::HttpsReply;

// The binary with its stdout on a pipe; killed (SIGKILL) and reaped if the test leaves early.
class Emulator {
 public:
  explicit Emulator(std::vector<std::string> args) {
    int fds[2];
    EXPECT_EQ(::pipe2(fds, O_CLOEXEC), 0);
    pid_ = ::fork();
    if (pid_ == 0) {
      ::dup2(fds[1], STDOUT_FILENO);
      std::vector<char*> argv;
      for (std::string& a : args) {
        argv.push_back(a.data());
      }
      argv.push_back(nullptr);
      ::execv(argv[0], argv.data());
      ::_exit(127);
    }
    ::close(fds[1]);
    out_ = fds[0];
  }
  ~Emulator() {
    if (pid_ > 0 && !reaped_) {
      ::kill(pid_, SIGKILL);
      ::waitpid(pid_, nullptr, 0);
    }
    ::close(out_);
  }

  // The next whole line of stdout, or "" when `timeout` passes first.
  std::string line(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (;;) {
      if (auto nl = buffered_.find('\n'); nl != std::string::npos) {
        std::string l = buffered_.substr(0, nl);
        buffered_.erase(0, nl + 1);
        return l;
      }
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      pollfd p{out_, POLLIN, 0};
      if (left.count() <= 0 || ::poll(&p, 1, static_cast<int>(left.count())) <= 0) {
        return {};
      }
      char chunk[4096];
      const ssize_t n = ::read(out_, chunk, sizeof chunk);
      if (n <= 0) {
        return {};
      }
      buffered_.append(chunk, static_cast<size_t>(n));
    }
  }

  int terminate(std::chrono::milliseconds timeout) {
    ::kill(pid_, SIGTERM);
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    int status = 0;
    while (std::chrono::steady_clock::now() < deadline) {
      if (::waitpid(pid_, &status, WNOHANG) == pid_) {
        reaped_ = true;
        return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
      }
      // Polling the child's exit: there is no descriptor to wait on for it.
      ::usleep(10000);
    }
    return -1;
  }

 private:
  pid_t pid_ = -1;
  int out_ = -1;
  std::string buffered_;
  bool reaped_ = false;
};

TEST(EmulateAzureCommandTest, PrintsItsHttpsAddressAndServesWithTheWrittenCa) {
  ASSERT_TRUE(std::filesystem::exists(NW_BINARY)) << NW_BINARY << " is not built";
  const auto dir =
      std::filesystem::temp_directory_path() / ("nw-arm-cmd-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string caFile = (dir / "ca.pem").string();
  Emulator emulator({NW_BINARY, "emulate", "azure", "--listen", "127.0.0.1:0", "--ca-file", caFile,
                     "--time-scale", "1000", "--vm-sizes",
                     std::string(NW_SHARED_DIR) + "/data/azure-vm-sizes.json"});
  const std::string first = emulator.line(60s);
  ASSERT_TRUE(first.starts_with("listening on https://127.0.0.1:")) << first;
  const std::string url = first.substr(std::string("listening on ").size());
  EXPECT_EQ(emulator.line(5s), "ca: " + caFile);
  EXPECT_EQ(emulator.line(5s), "tenant: 00000000-0000-0000-0000-000000000001, vm sizes: 1791");

  std::ifstream in(caFile);
  std::stringstream ca;
  ca << in.rdbuf();
  ASSERT_TRUE(ca.str().starts_with("-----BEGIN CERTIFICATE-----")) << ca.str();
  HttpsClient client(ca.str());
  HttpsReply token =
      client.send("POST", url + "/00000000-0000-0000-0000-000000000001/oauth2/v2.0/token",
                  "grant_type=client_credentials&client_id=cli&client_secret=s&scope=https%3A%2F%2F"
                  "management.azure.com%2F.default");
  ASSERT_EQ(token.status, 200) << token.body;
  HttpsReply group =
      client.send("PUT", url + "/subscriptions/s/resourceGroups/rg?api-version=2021-04-01",
                  R"({"location":"eastus"})",
                  {"Authorization: Bearer " + token.json()["access_token"].get<std::string>(),
                   "Content-Type: application/json"});
  EXPECT_EQ(group.status, 201) << group.body;

  EXPECT_EQ(emulator.terminate(10s), 0);
  std::filesystem::remove_all(dir);
}

TEST(EmulateAzureCommandTest, DefaultCaFileIsInAPrivateDirectoryRemovedOnExit) {
  Emulator emulator({NW_BINARY, "emulate", "azure", "--listen", "127.0.0.1:0"});
  ASSERT_TRUE(emulator.line(60s).starts_with("listening on https://"));
  const std::string line = emulator.line(5s);
  ASSERT_TRUE(line.starts_with("ca: ")) << line;
  const std::filesystem::path ca = line.substr(4);
  const std::filesystem::path dir = ca.parent_path();
  EXPECT_TRUE(dir.filename().string().starts_with("nodewright-azure-")) << dir;
  struct stat info {};
  ASSERT_EQ(::lstat(dir.c_str(), &info), 0) << dir;
  EXPECT_TRUE(S_ISDIR(info.st_mode));
  EXPECT_EQ(info.st_mode & 0777, 0700u);
  ASSERT_EQ(::lstat(ca.c_str(), &info), 0) << ca;
  EXPECT_TRUE(S_ISREG(info.st_mode));
  EXPECT_EQ(emulator.terminate(10s), 0);
  EXPECT_FALSE(std::filesystem::exists(dir)) << dir;
}

TEST(EmulateAzureCommandTest, CaWriteNeverFollowsALinkPlantedAtItsTemporaryName) {
  const auto dir =
      std::filesystem::temp_directory_path() / ("nw-arm-link-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::filesystem::path victim = dir / "victim";
  {
    std::ofstream out(victim);
    out << "precious";
  }
  const std::filesystem::path caFile = dir / "ca.pem";
  std::filesystem::create_symlink(victim, caFile.string() + ".tmp");
  Emulator emulator(
      {NW_BINARY, "emulate", "azure", "--listen", "127.0.0.1:0", "--ca-file", caFile.string()});
  ASSERT_TRUE(emulator.line(60s).starts_with("listening on https://"));
  EXPECT_EQ(emulator.line(5s), "ca: " + caFile.string());
  std::ifstream in(victim);
  std::stringstream kept;
  kept << in.rdbuf();
  EXPECT_EQ(kept.str(), "precious");
  EXPECT_FALSE(std::filesystem::is_symlink(caFile));
  std::ifstream written(caFile);
  std::stringstream ca;
  ca << written.rdbuf();
  EXPECT_TRUE(ca.str().starts_with("-----BEGIN CERTIFICATE-----"));
  EXPECT_EQ(emulator.terminate(10s), 0);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace nodewright::emulators::arm
