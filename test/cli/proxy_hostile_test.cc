// Hostile clients and hostile upstreams against `forgemeter proxy`: each
// gets a clear status or a closed connection, the forge is sent nothing a
// client should not have sent, and the proxy goes on serving.
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <string>
#include <thread>

#include "proxy_run.h"
#include "raw_peer.h"
#include "serve_client.h"
#include "support/eventually.h"
#include "support/silent_listener.h"
#include "testforge/forge.h"

using namespace forgemeter;
using namespace fmtest;
using namespace std::chrono_literals;

namespace {

int port_of_url(const std::string& url) { return std::stoi(url.substr(url.rfind(':') + 1)); }

// Sends `bytes` on a fresh connection; what came back before the proxy closed it (or 5 s passed).
std::string exchange_raw(const std::string& url, const std::string& bytes) {
  const int fd = raw_connect(port_of_url(url));
  REQUIRE(fd >= 0);
  ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
  std::string got;
  const auto until = std::chrono::steady_clock::now() + 5s;
  char buf[4096];
  while (std::chrono::steady_clock::now() < until) {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n == 0) break;
    if (n > 0) got.append(buf, static_cast<std::size_t>(n));
    if (n < 0) std::this_thread::sleep_for(10ms);  // nothing yet: the answer is on its way
  }
  ::close(fd);
  return got;
}

std::string status_line(const std::string& answer) { return answer.substr(0, answer.find("\r\n")); }

}  // namespace

TEST_CASE("hostile clients: an oversized head, CR or NUL in a field, a slowloris, a vanished upload") {
  testforge::Forge forge;
  ProxyRun proxy(forge, {"--header-timeout", "1s"});
  const std::string big = "GET /repos/o/r HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(64 * 1024, 'a') + "\r\n\r\n";
  const std::string too_big = exchange_raw(proxy.url(), big);
  CHECK((too_big.empty() || status_line(too_big).find(" 431") != std::string::npos));

  const std::string nul =
      exchange_raw(proxy.url(), "GET /repos/o/r HTTP/1.1\r\nHost: x\r\nX-A: b" + std::string(1, '\0') + "c\r\n\r\n");
  CHECK((nul.empty() || status_line(nul).find(" 400") != std::string::npos));
  const std::string cr = exchange_raw(proxy.url(), "GET /repos/o/r HTTP/1.1\r\nHost: x\r\nX-A: b\rc\r\n\r\n");
  CHECK((cr.empty() || status_line(cr).find(" 400") != std::string::npos));
  CHECK(forge.truth().total() == 0);  // none of them reached the forge

  // A byte every 300 ms of a head never finished: cut at the header timeout.
  const int slow = raw_connect(port_of_url(proxy.url()));
  REQUIRE(slow >= 0);
  const std::string head = "GET /repos/o/r HTTP/1.1\r\nHost: x\r\nX-Slow: ";
  bool cut = false;
  for (std::size_t i = 0; i < 40 && !cut; ++i) {
    ::send(slow, &head[i % head.size()], 1, MSG_NOSIGNAL);
    cut = closed_by_peer(slow, 300ms);
  }
  CHECK(cut);
  ::close(slow);

  // An upload whose client vanishes 1 MiB into 8 MiB: the proxy serves on.
  const int up = raw_connect(port_of_url(proxy.url()));
  const std::string post =
      "POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: 8388608\r\n\r\n" + std::string(1 << 20, 'u');
  ::send(up, post.data(), post.size(), MSG_NOSIGNAL);
  ::close(up);
  const auto after = fetch(proxy.url() + "/repos/o/r");
  CHECK(after.status == 200);
  CHECK(fetch(proxy.admin() + "/healthz").status == 200);
}

TEST_CASE("hostile upstreams: a 100 MB header block is 502, silence is 504, a hostile Link or Location is dropped") {
  RawPeer huge("HTTP/1.1 200 OK\r\nX-Big: " + std::string(std::size_t{100} << 20, 'h') + "\r\n\r\n");
  ProxyRun to_huge(huge.url(""), {});
  CHECK(fetch(to_huge.url() + "/repos/o/r").status == 502);

  SilentListener silent;
  ProxyRun to_silent("http://127.0.0.1:" + std::to_string(silent.port()), {"--upstream-timeout", "1s"});
  CHECK(fetch(to_silent.url() + "/repos/o/r").status == 504);

  RawPeer hostile("HTTP/1.1 302 Found\r\nLocation: http://127.0.0.1:1.evil/x\r\nLink: <" + std::string(70 * 1024, 'l') +
                  ">; rel=\"next\"\r\nContent-Length: 0\r\n\r\n");
  ProxyRun to_hostile(hostile.url(""), {});
  const auto got = fetch(to_hostile.url() + "/repos/o/r");
  CHECK(got.status == 302);
  CHECK(got.headers.find("Location: http://127.0.0.1:1.evil/x") != std::string::npos);  // another origin: as sent
  CHECK(got.headers.find("Link:") == std::string::npos);  // past 64 KiB: not rewritten, not sent
}

TEST_CASE("SIGTERM under load: every request started completes or is cut, and the lines count what was sent") {
  testforge::Forge forge;
  ProxyRun proxy(forge, {"--shutdown-grace", "5s"});
  constexpr int kClients = 16;
  std::vector<Fetched> got(kClients);
  std::vector<std::jthread> clients;
  for (int i = 0; i < kClients; ++i)
    clients.emplace_back(
        [&, i] { got[static_cast<std::size_t>(i)] = fetch(proxy.url() + "/slow/700?client=" + std::to_string(i)); });
  REQUIRE(forge.truth().await_total(kClients / 2, 10s));  // in flight at the signal
  CHECK(proxy.stop() == 0);
  for (std::jthread& t : clients) t.join();
  int answered = 0;
  for (const Fetched& f : got) {
    CHECK((f.status == 200 || f.curl_code != 0));  // whole, or visibly cut: never a wrong answer
    answered += f.status == 200 ? 1 : 0;
  }
  CHECK(answered >= kClients / 2);  // those on the wire at the signal finished within the grace
  const std::string lines = proxy.meter_lines();
  CHECK(lines.find("stopping)") != std::string::npos);
  const std::size_t at = lines.find("forge HTTP: ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoull(lines.substr(at + 12)) == forge.truth().total());  // every request sent, counted
}
