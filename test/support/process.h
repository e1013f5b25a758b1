// process.h — run a program (the built `forgemeter`, a real server the tests
// need) as a child process and collect what it did: exit code, stdout, stderr.
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace forgemeter::test {

struct ProcessResult {
  int exit_code = -1;  // exit status, or 128 + signal when killed by one
  std::string out;
  std::string err;
  bool timed_out = false;
};

struct ProcessOptions {
  std::string stdin_data;
  std::vector<std::pair<std::string, std::string>> env;  // added to the current environment
  std::chrono::milliseconds timeout{60'000};             // then SIGKILL, timed_out = true
};

ProcessResult run_process(const std::vector<std::string>& argv, const ProcessOptions& options = {});

// A child left running: its stdout and stderr go to files.
struct Spawned {
  int pid = -1;
  std::string out_path, err_path;
};
Spawned spawn_process(const std::vector<std::string>& argv, const std::string& out_path, const std::string& err_path,
                      const std::vector<std::pair<std::string, std::string>>& env = {});
// Waits for a spawned child (in real time, at most `timeout`); its exit code
// (128 + signal), or -1 when it is still running at the timeout.
int wait_exit(int pid, std::chrono::milliseconds timeout);

// The absolute path of `program` found on PATH, or "" when it is not there.
std::string find_on_path(const std::string& program);

// A fresh directory under TMPDIR (or /tmp), removed with everything in it at destruction.
class TempDir {
 public:
  TempDir();
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string file(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string read_file(const std::string& path);
void write_file(const std::string& path, const std::string& text);

}  // namespace forgemeter::test
