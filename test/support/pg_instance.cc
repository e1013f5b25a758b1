#include "support/pg_instance.h"

#include <pwd.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <vector>

#include "support/free_port.h"
#include "support/process.h"
#include "support/temp_files.h"

namespace fmtest {
namespace {

std::vector<std::string> split(const std::string& line) {
  std::vector<std::string> out;
  std::istringstream in(line);
  for (std::string w; in >> w;) out.push_back(w);
  return out;
}

}  // namespace

std::string PrivatePg::bin_dir() {
  if (const char* b = std::getenv("FORGEMETER_PG_BIN"); b && *b) return b;
  std::vector<std::string> found;
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/usr/lib/postgresql", ec))
    if (std::filesystem::exists(e.path() / "bin" / "initdb")) found.push_back((e.path() / "bin").string());
  std::sort(found.begin(), found.end(), [](const std::string& a, const std::string& b) {
    return a.size() != b.size() ? a.size() < b.size() : a < b;  // "9" < "15"
  });
  return found.empty() ? std::string() : found.back();
}

// Runs bin_/program with whitespace-separated args (no spaces inside an
// argument; every path here is ours), as `postgres` when we are root, from
// dir_, output into dir_/cmd.log. Returns its exit code (support/process.h), -1
// when it cannot be started.
int PrivatePg::run(const std::string& program, const std::string& args_line) const {
  std::vector<std::string> argv;
  if (::geteuid() == 0) argv = {"/usr/sbin/runuser", "-u", "postgres", "--"};
  argv.push_back(bin_ + "/" + program);
  for (auto& a : split(args_line)) argv.push_back(a);
  const std::string log = dir_ + "/cmd.log";
  try {
    return wait_exit(spawn_process(argv, {.out_path = log, .append = true, .dir = dir_}).pid);
  } catch (const std::runtime_error&) {
    return -1;
  }
}

PrivatePg::PrivatePg() : bin_(bin_dir()) {
  if (bin_.empty()) throw std::runtime_error("no PostgreSQL server binaries (set FORGEMETER_PG_BIN)");
  char tmpl[] = "/tmp/forgemeter-pgtest.XXXXXX";
  if (!::mkdtemp(tmpl)) throw std::runtime_error("mkdtemp failed");
  dir_ = tmpl;
  ::chmod(dir_.c_str(), 0755);
  if (::geteuid() == 0) {
    passwd* pw = ::getpwnam("postgres");
    if (!pw || ::chown(dir_.c_str(), pw->pw_uid, pw->pw_gid) != 0)
      throw std::runtime_error("running as root, but cannot hand " + dir_ + " to the postgres user");
  }
  if (run("initdb", "-D " + dir_ + "/data -U postgres -A trust --no-sync") != 0)
    throw std::runtime_error("initdb failed: " + read_file(dir_ + "/cmd.log"));
  for (int attempt = 0; attempt < 5; ++attempt) {
    port_ = free_loopback_port();
    if (try_start()) return;
  }
  throw std::runtime_error("could not start a private PostgreSQL: " + read_file(dir_ + "/log"));
}

PrivatePg::~PrivatePg() {
  if (running_) run("pg_ctl", "-D " + dir_ + "/data -m immediate -w stop");
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string PrivatePg::conninfo() const {
  return "host=127.0.0.1 port=" + std::to_string(port_) + " user=postgres dbname=postgres";
}

std::string PrivatePg::socket_conninfo() const {
  return "host=" + dir_ + " port=" + std::to_string(port_) + " user=postgres dbname=postgres";
}

bool PrivatePg::try_start() {
  const std::string opts = "-c listen_addresses=127.0.0.1 -p " + std::to_string(port_) + " -k " + dir_ +
                           " -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=100";
  // pg_ctl passes -o's value to postgres as one string; our run() splits on
  // spaces, so hand the options through PGOPTIONS-free -o pieces instead.
  std::string args = "-D " + dir_ + "/data -l " + dir_ + "/log -w -t 30 start";
  for (auto& piece : split(opts)) args += " -o " + piece;
  running_ = run("pg_ctl", args) == 0;
  return running_;
}

void PrivatePg::stop() {
  if (!running_) return;
  run("pg_ctl", "-D " + dir_ + "/data -m fast -w -t 30 stop");
  running_ = false;
}

void PrivatePg::start() {
  if (running_) return;
  if (!try_start()) throw std::runtime_error("could not restart the private PostgreSQL: " + read_file(dir_ + "/log"));
}

}  // namespace fmtest
