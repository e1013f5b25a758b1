#include "h2_server.h"

#include "support/free_port.h"

#include <signal.h>
#include <unistd.h>

#include <filesystem>
#include <sstream>
#include <stdexcept>
#include <string_view>
#include <thread>

namespace fmtest {
namespace {

using namespace std::chrono;

// "[id=3] [  0.507] recv (stream_id=1) :authority: host:port" -> its parts.
bool parse_received(std::string_view line, int& connection, int& stream, std::string& name, std::string& value) {
  constexpr std::string_view kId = "[id=", kRecv = "] recv (stream_id=";
  if (line.substr(0, kId.size()) != kId) return false;
  const auto recv = line.find(kRecv);
  if (recv == std::string_view::npos) return false;
  const auto close = line.find(") ", recv + kRecv.size());
  if (close == std::string_view::npos) return false;
  const std::string_view field = line.substr(close + 2);
  const auto sep = field.find(": ", 1);  // a pseudo-header starts with ':'
  if (sep == std::string_view::npos) return false;
  try {
    connection = std::stoi(std::string(line.substr(kId.size())));
    stream = std::stoi(std::string(line.substr(recv + kRecv.size())));
  } catch (const std::exception&) {
    return false;
  }
  name.assign(field.substr(0, sep));
  value.assign(field.substr(sep + 2));
  return true;
}

}  // namespace

H2Server::H2Server(const forgemeter::testforge::TestCa& ca, const std::map<std::string, std::string>& files) {
  const std::string nghttpd = fmtest::find_on_path("nghttpd"), stdbuf = fmtest::find_on_path("stdbuf");
  if (nghttpd.empty())
    throw std::runtime_error(
        "nghttpd not found on PATH: install the Debian package nghttp2-server (scripts/dev test does)");
  if (stdbuf.empty()) throw std::runtime_error("stdbuf (coreutils) not found on PATH");
  for (const auto& [path, content] : files) {
    const std::filesystem::path p = std::filesystem::path(dir_.file("root")) / path;
    std::filesystem::create_directories(p.parent_path());
    fmtest::write_file(p.string(), content);
  }
  fmtest::write_file(dir_.file("key.pem"), ca.server_key_pem());
  fmtest::write_file(dir_.file("cert.pem"), ca.server_cert_pem());
  for (int attempt = 0; attempt < 5; ++attempt)
    if (start(nghttpd, stdbuf)) return;
  throw std::runtime_error("h2 server: nghttpd did not start; its log:\n" + log());
}

bool H2Server::start(const std::string& nghttpd, const std::string& stdbuf) {
  port_ = free_loopback_port();
  if (port_ == 0) throw std::runtime_error("h2 server: no free port on 127.0.0.1");
  // stdbuf -oL: nghttpd's log is line-buffered, so a test reads it as it grows.
  const auto child = fmtest::spawn_process({stdbuf, "-oL", nghttpd, "-v", "-a", "127.0.0.1", "-d", dir_.file("root"),
                                            std::to_string(port_), dir_.file("key.pem"), dir_.file("cert.pem")},
                                           dir_.file("log"), dir_.file("err"));
  pid_ = child.pid;
  const std::string ready = "listen 127.0.0.1:" + std::to_string(port_);
  const auto deadline = steady_clock::now() + seconds(10);
  while (steady_clock::now() < deadline) {
    if (log().find(ready) != std::string::npos) return true;
    if (fmtest::wait_exit(pid_, milliseconds(10)) != -1) break;  // it exited (the port was taken)
  }
  ::kill(pid_, SIGKILL);
  fmtest::wait_exit(pid_, seconds(5));
  pid_ = -1;
  return false;
}

H2Server::~H2Server() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGTERM);
  if (fmtest::wait_exit(pid_, seconds(5)) == -1) {
    ::kill(pid_, SIGKILL);
    fmtest::wait_exit(pid_, seconds(5));
  }
}

std::string H2Server::resolve(const std::string& host) const {
  return host + ":" + std::to_string(port_) + ":127.0.0.1";
}

std::string H2Server::log() const {
  try {
    return fmtest::read_file(dir_.file("log")) + fmtest::read_file(dir_.file("err"));
  } catch (const std::exception&) {
    return "";
  }
}

std::vector<H2Request> H2Server::received() const {
  std::vector<H2Request> out;
  std::map<std::pair<int, int>, std::size_t> index;  // (connection, stream) -> out[i]
  std::istringstream in(fmtest::read_file(dir_.file("log")));
  std::string line, name, value;
  int connection = 0, stream = 0;
  while (std::getline(in, line)) {
    if (!parse_received(line, connection, stream, name, value)) continue;
    auto [it, fresh] = index.try_emplace({connection, stream}, out.size());
    if (fresh) out.push_back({connection, stream, {}});
    out[it->second].headers[name] = value;
  }
  return out;
}

bool H2Server::await(std::size_t n, std::chrono::milliseconds timeout) const {
  const auto deadline = steady_clock::now() + timeout;
  for (;;) {
    if (received().size() >= n) return true;
    if (steady_clock::now() >= deadline) return false;
    std::this_thread::sleep_for(milliseconds(5));  // polling a file another process appends to
  }
}

int H2Server::h2_connections() const {
  const std::string text = fmtest::read_file(dir_.file("log"));
  int n = 0;
  for (auto at = text.find("The negotiated protocol: h2"); at != std::string::npos;
       at = text.find("The negotiated protocol: h2", at + 1))
    ++n;
  return n;
}

}  // namespace fmtest
