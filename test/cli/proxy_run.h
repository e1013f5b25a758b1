// proxy_run.h — `forgemeter proxy` as a process in front of the loopback
// forge, for the proxy's end-to-end tests: started on ephemeral ports (read
// back from its stderr), its hourly lines and access log in a scratch
// directory, stopped with SIGTERM.
#pragma once

#include <chrono>
#include <string>
#include <vector>

#include "support/process.h"
#include "support/temp_files.h"
#include "testforge/forge.h"

namespace fmtest {

class ProxyRun {
 public:
  // `extra`: more options for the proxy. The forge is its upstream; each
  // request's lane reaches the forge in X-Forgemeter-Lane (its ground truth).
  ProxyRun(const forgemeter::testforge::Forge& forge, const std::vector<std::string>& extra = {});
  // In front of any server: `upstream` is its base URL.
  ProxyRun(const std::string& upstream, const std::vector<std::string>& extra);
  ~ProxyRun();  // SIGTERM, and SIGKILL after 10 s
  ProxyRun(const ProxyRun&) = delete;
  ProxyRun& operator=(const ProxyRun&) = delete;

  const std::string& url() const { return url_; }      // "http://127.0.0.1:PORT"
  const std::string& admin() const { return admin_; }  // "http://127.0.0.1:PORT"
  // SIGTERM; its exit code.
  int stop();
  // Sends `sig` only (a SIGTERM's stop is then awaited with wait_exit).
  void signal(int sig) const;
  // Its exit code once it exits within `timeout` (-1 when it did not: SIGKILLed).
  int wait_exit(std::chrono::milliseconds timeout);
  int pid() const { return pid_; }
  std::string meter_lines() const;  // what --meter-log holds
  std::string access_log() const;
  std::string stderr_text() const;

 private:
  TempDir dir_;
  int pid_ = -1;
  std::string url_, admin_;
};

// Debian's Python interpreter (PyGithub and python-gitlab are its packages,
// not the PATH's python3's) and the test clients' folder (test/clients).
std::string debian_python();
std::string clients_dir();

}  // namespace fmtest
