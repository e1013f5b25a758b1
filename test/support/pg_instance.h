// Test support: a PRIVATE PostgreSQL server for tests that stop, restart or
// otherwise break the server — never the suite's shared one, which other tests
// use at the same time.
//
// initdb into a fresh directory under /tmp, then pg_ctl start on 127.0.0.1 on
// a free port (fsync off). PostgreSQL refuses to run as root, so as root every
// server command runs as the `postgres` user (runuser), from the instance's
// directory, which that user owns. The server binaries come from
// FORGEMETER_PG_BIN, else the newest /usr/lib/postgresql/*/bin.
//
// Not thread-safe; one owner. The destructor stops the server (immediate) and
// removes the directory.
#pragma once

#include <string>

namespace fmtest {

class PrivatePg {
 public:
  // initdb + start. Throws std::runtime_error (with the server log) on failure.
  PrivatePg();
  ~PrivatePg();
  PrivatePg(const PrivatePg&) = delete;
  PrivatePg& operator=(const PrivatePg&) = delete;

  // Where the server's binaries are, or empty when there are none.
  static std::string bin_dir();

  std::string conninfo() const;         // TCP on 127.0.0.1
  std::string socket_conninfo() const;  // the Unix socket in its directory
  int port() const { return port_; }
  bool running() const { return running_; }

  // pg_ctl stop -m fast (sessions are terminated); waits until it is down.
  void stop();
  // Starts it again on the same port; throws std::runtime_error on failure.
  void start();

 private:
  bool try_start();
  int run(const std::string& program, const std::string& args_line) const;

  std::string bin_;
  std::string dir_;
  int port_ = 0;
  bool running_ = false;
};

}  // namespace fmtest
