// The serving room against real clients on loopback: libcurl for requests,
// raw sockets for the clients no library makes (idle, dribbling, too many).
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <thread>

#include "serve/server.h"
#include "serve_client.h"
#include "support/eventually.h"
#include "support/temp_files.h"

using namespace forgemeter::serve;
using namespace std::chrono_literals;

namespace {

ServerOptions loopback() {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  return o;
}

Handler echo_path() {
  return [](const ServeRequest& r, Reply reply) {
    reply.answer(200, {{"Content-Type", "text/plain"}, {"X-Method", r.method}}, r.path + "|" + r.query + "|" + r.body);
  };
}

std::string url_of(const Server& s, const std::string& path) { return "http://" + s.addresses().at(0) + path; }

}  // namespace

TEST_CASE("requests are answered; the probes answer as their owner says") {
  std::atomic<bool> ready{false}, degraded{false}, stuck{false};
  ServerOptions o = loopback();
  o.ready = [&]() -> std::optional<std::string> {
    if (ready) return std::nullopt;
    return "warming up";
  };
  o.health = [&]() -> std::optional<std::string> {
    if (stuck) return "stuck";
    return std::nullopt;
  };
  o.degraded = [&]() -> std::optional<std::string> {
    if (degraded) return "a part is degraded";
    return std::nullopt;
  };
  Server server(o, echo_path());
  REQUIRE_FALSE(server.start());
  auto got = fmtest::fetch(url_of(server, "/a/b?x=1"), "POST", "hello");
  CHECK(got.status == 200);
  CHECK(got.body == "/a/b|x=1|hello");
  CHECK(got.headers.find("X-Method: POST") != std::string::npos);
  CHECK(fmtest::fetch(url_of(server, "/healthz")).body == "ok\n");
  degraded = true;  // said, and still live
  auto live = fmtest::fetch(url_of(server, "/healthz"));
  CHECK(live.status == 200);
  CHECK(live.body == "ok\na part is degraded\n");
  stuck = true;  // not live: why, alone
  auto dead = fmtest::fetch(url_of(server, "/healthz"));
  CHECK(dead.status == 503);
  CHECK(dead.body == "stuck\n");
  stuck = degraded = false;
  auto not_ready = fmtest::fetch(url_of(server, "/readyz"));
  CHECK(not_ready.status == 503);
  CHECK(not_ready.body == "warming up\n");
  ready = true;
  CHECK(fmtest::fetch(url_of(server, "/readyz")).status == 200);
  server.drain();  // readiness goes; everything else still serves
  CHECK(fmtest::fetch(url_of(server, "/readyz")).status == 503);
  CHECK(fmtest::fetch(url_of(server, "/healthz")).status == 200);
  CHECK(fmtest::fetch(url_of(server, "/x")).status == 200);
}

TEST_CASE("an answer made later, on another thread, reaches the client; a lost Reply answers 500") {
  std::mutex later_mu;  // the server's threads start them, this one counts them
  std::vector<std::jthread> later;
  Server server(loopback(), [&](const ServeRequest& r, Reply reply) {
    if (r.path == "/lost") return;  // the handler's bug: no answer, no Reply kept
    if (r.path == "/throws") throw std::runtime_error("boom");
    std::lock_guard lock(later_mu);
    later.emplace_back([reply]() mutable {
      std::this_thread::sleep_for(200ms);  // the slow work the answer waits for
      reply.answer(200, {}, "late");
    });
  });
  REQUIRE_FALSE(server.start());
  auto got = fmtest::fetch(url_of(server, "/slow"));
  CHECK(got.status == 200);
  CHECK(got.body == "late");
  CHECK(fmtest::fetch(url_of(server, "/lost")).status == 500);
  CHECK(fmtest::fetch(url_of(server, "/throws")).status == 500);
}

TEST_CASE("a stream with gaps longer than the idle timeout is not cut") {
  // The shape of a 10-minute event stream with a byte a minute, scaled to
  // whole seconds: the idle timeout 1 s, four gaps of 1.5 s each.
  ServerOptions o = loopback();
  o.idle_timeout = 1s;
  std::jthread writer;
  Server server(o, [&](const ServeRequest&, Reply reply) {
    reply.start_stream(200, {{"Content-Type", "text/event-stream"}});
    writer = std::jthread([reply]() mutable {
      for (int i = 0; i < 4; ++i) {
        std::this_thread::sleep_for(1500ms);
        reply.write("data: " + std::to_string(i) + "\n\n");
      }
      reply.end();
    });
  });
  REQUIRE_FALSE(server.start());
  auto got = fmtest::fetch(url_of(server, "/events"));
  CHECK(got.curl_code == 0);
  CHECK(got.body == "data: 0\n\ndata: 1\n\ndata: 2\n\ndata: 3\n\n");
}

TEST_CASE("a client dribbling its header block is cut at the header timeout; an idle one at the idle timeout") {
  ServerOptions o = loopback();
  o.header_timeout = 1s;
  o.idle_timeout = 2s;
  Server server(o, echo_path());
  REQUIRE_FALSE(server.start());
  const int port = fmtest::port_of(server.addresses().at(0));
  const int slow = fmtest::raw_connect(port);
  REQUIRE(slow >= 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa";
  bool cut = false;
  for (char c : head) {  // a byte every 100 ms keeps an inactivity timeout from firing
    if (::send(slow, &c, 1, MSG_NOSIGNAL) != 1 || fmtest::closed_by_peer(slow, 100ms)) {
      cut = true;
      break;
    }
  }
  const auto took = std::chrono::steady_clock::now() - start;
  CHECK(cut);
  CHECK(took >= 900ms);  // not before its timeout (1 s; the check's tick is 100 ms)
  CHECK(took < 3s);      // and about then: far before the 4 s the whole head would take
  ::close(slow);
  const int idle = fmtest::raw_connect(port);
  CHECK(fmtest::closed_by_peer(idle, 5s));
  ::close(idle);
}

TEST_CASE("a header field holding a NUL is refused, never handed over cut short") {
  Server server(loopback(), echo_path());
  REQUIRE_FALSE(server.start());
  const int fd = fmtest::raw_connect(fmtest::port_of(server.addresses().at(0)));
  REQUIRE(fd >= 0);
  const std::string request = "GET /x HTTP/1.1\r\nHost: x\r\nX-A:  b" + std::string(1, '\0') + "Evil: 1\r\n\r\n";
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  std::string got;
  char buf[1024];
  REQUIRE(fmtest::eventually([&] {
    const ssize_t n = ::recv(fd, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) got.append(buf, static_cast<std::size_t>(n));
    return got.find("\r\n\r\n") != std::string::npos || n == 0;
  }));
  ::close(fd);
  CHECK(got.rfind("HTTP/1.1 400", 0) == 0);
  CHECK(got.find("holds a NUL") != std::string::npos);
  // Fields with spaces and tabs around their values are whole, and served.
  const int ok = fmtest::raw_connect(fmtest::port_of(server.addresses().at(0)));
  const std::string plain = "GET /y HTTP/1.1\r\nHost: x\r\nX-A:\t b  c \t\r\nX-B:d\r\n\r\n";
  REQUIRE(::send(ok, plain.data(), plain.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(plain.size()));
  got.clear();
  REQUIRE(fmtest::eventually([&] {
    const ssize_t n = ::recv(ok, buf, sizeof buf, MSG_DONTWAIT);
    if (n > 0) got.append(buf, static_cast<std::size_t>(n));
    return got.find("/y||") != std::string::npos || n == 0;
  }));
  ::close(ok);
  CHECK(got.rfind("HTTP/1.1 200", 0) == 0);
}

TEST_CASE("bounds: a body or header block too large is refused; past max_connections closed at accept") {
  ServerOptions o = loopback();
  o.max_body_bytes = 1000;
  o.max_header_bytes = 8192;
  o.max_connections = 20;
  Server server(o, echo_path());
  REQUIRE_FALSE(server.start());
  CHECK(fmtest::fetch(url_of(server, "/"), "POST", std::string(1001, 'b')).status == 413);
  CHECK(fmtest::fetch(url_of(server, "/"), "POST", std::string(1000, 'b')).status == 200);
  const int port = fmtest::port_of(server.addresses().at(0));
  const int big = fmtest::raw_connect(port);
  const std::string head = "GET / HTTP/1.1\r\nHost: x\r\nX-Big: " + std::string(16 * 1024, 'h') + "\r\n\r\n";
  ::send(big, head.data(), head.size(), MSG_NOSIGNAL);
  CHECK(fmtest::closed_by_peer(big, 5s));
  ::close(big);

  std::vector<int> held;
  for (int i = 0; i < 100; ++i) held.push_back(fmtest::raw_connect(port));
  int closed = 0;
  for (int fd : held) closed += fmtest::closed_by_peer(fd, 200ms) ? 1 : 0;
  CHECK(closed >= 100 - 20 - 16);  // past the maximum and the probes' reserve
  // Full of idle clients, the server still answers its probe (through the reserve).
  CHECK(fmtest::fetch(url_of(server, "/healthz")).status == 200);
  for (int fd : held) ::close(fd);
}

TEST_CASE("listeners: unix sockets and IPv6; off loopback without TLS refused") {
  fmtest::TempDir dir;
  const std::string sock = dir.path() + "/fm.sock";
  ServerOptions o;
  o.listen = {"unix:" + sock, "[::1]:0"};
  Server server(o, echo_path());
  REQUIRE_FALSE(server.start());
  CHECK(fmtest::fetch("http://localhost/over-unix", "GET", {}, sock).body == "/over-unix||");
  CHECK(fmtest::fetch("http://" + server.addresses().at(1) + "/v6").body == "/v6||");
  server.stop(0ms);
  CHECK(::access(sock.c_str(), F_OK) != 0);  // the socket's file goes with the server

  ServerOptions exposed;
  exposed.listen = {"0.0.0.0:0"};
  Server refused(exposed, echo_path());
  const auto why = refused.start();
  REQUIRE(why);
  CHECK(why->find("--insecure-listen") != std::string::npos);
  exposed.insecure_listen = true;
  Server allowed(exposed, echo_path());
  CHECK_FALSE(allowed.start());
}

TEST_CASE("TLS: a certificate made here is served and verified by libcurl") {
  fmtest::TempDir dir;
  const std::string cert = dir.path() + "/cert.pem", key = dir.path() + "/key.pem";
  const std::string make =
      "openssl req -x509 -newkey rsa:2048 -nodes -days 1 -subj /CN=localhost "
      "-addext subjectAltName=IP:127.0.0.1 -keyout " +
      key + " -out " + cert + " 2>/dev/null";
  REQUIRE(std::system(make.c_str()) == 0);
  ServerOptions o = loopback();
  o.tls_cert_file = cert;
  o.tls_key_file = key;
  Server server(o, echo_path());
  REQUIRE_FALSE(server.start());
  const std::string url = "https://" + server.addresses().at(0) + "/secure";
  auto got = fmtest::fetch(url, "GET", {}, {}, cert);
  CHECK(got.status == 200);
  CHECK(got.body == "/secure||");
  CHECK(fmtest::fetch("http://" + server.addresses().at(0) + "/plain").status != 200);  // no plain HTTP there
  CHECK_FALSE(server.reload_tls());  // the same files again: still served
  CHECK(fmtest::fetch(url, "GET", {}, {}, cert).status == 200);
}

TEST_CASE("the access log: one record per request, no credential in it") {
  std::vector<AccessRecord> records;
  std::mutex mu;
  ServerOptions o = loopback();
  o.access_log = [&](const AccessRecord& r) {
    std::lock_guard lock(mu);
    records.push_back(r);
  };
  Server server(o, [](const ServeRequest&, Reply reply) {
    reply.log_field("lane", "sweeper");
    reply.answer(201, {}, "made");
  });
  REQUIRE_FALSE(server.start());
  fmtest::fetch(url_of(server, "/repos?per_page=5&access_token=SECRET1&private_token=SECRET2"));
  REQUIRE(fmtest::eventually([&] {
    std::lock_guard lock(mu);
    return records.size() == 1;
  }));
  const std::string line = json_line(records[0]);
  CHECK(line.find("SECRET") == std::string::npos);
  CHECK(line.find(R"("target":"/repos?per_page=5&access_token=***&private_token=***")") != std::string::npos);
  CHECK(line.find(R"("status":201)") != std::string::npos);
  CHECK(line.find(R"("bytes":4)") != std::string::npos);
  CHECK(line.find(R"("lane":"sweeper")") != std::string::npos);
  CHECK(line.back() == '\n');
  CHECK(line.find('\n') == line.size() - 1);
}

TEST_CASE("stop: a request in flight finishes within the grace; new ones are refused") {
  std::mutex later_mu;  // the server's threads start them, this one counts them
  std::vector<std::jthread> later;
  Server server(loopback(), [&](const ServeRequest&, Reply reply) {
    std::lock_guard lock(later_mu);
    later.emplace_back([reply]() mutable {
      std::this_thread::sleep_for(500ms);
      reply.answer(200, {}, "finished");
    });
  });
  REQUIRE_FALSE(server.start());
  const std::string url = url_of(server, "/work");
  std::jthread client([&] { CHECK(fmtest::fetch(url).body == "finished"); });
  REQUIRE(fmtest::eventually([&] {
    std::lock_guard lock(later_mu);
    return later.size() == 1;
  }));
  server.stop(5s);
  client.join();
  CHECK(fmtest::fetch(url).status == 0);  // nothing listens any more
}

TEST_CASE("stop: a stream its client left mid-way does not hold the stop for the grace") {
  std::atomic<bool> noticed{false};
  std::jthread writer;
  Server server(loopback(), [&](const ServeRequest&, Reply reply) {
    reply.start_stream(200, {{"Content-Type", "text/event-stream"}});
    writer = std::jthread([reply, &noticed]() mutable {
      while (reply.write("data: x\n\n")) std::this_thread::sleep_for(10ms);  // until the room finds the client gone
      noticed = true;
    });
  });
  REQUIRE_FALSE(server.start());
  const int fd = fmtest::raw_connect(fmtest::port_of(server.addresses().at(0)));
  const std::string request = "GET /events HTTP/1.1\r\nHost: x\r\n\r\n";
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  char head[512];
  REQUIRE(fmtest::eventually([&] { return ::recv(fd, head, sizeof head, 0) > 0; }));  // the stream began
  ::close(fd);
  REQUIRE(fmtest::eventually([&] { return noticed.load(); }));
  const auto began = std::chrono::steady_clock::now();
  server.stop(30s);
  // Nothing is in flight: the stop takes what joining the threads takes,
  // far below the 30 s grace (an exchange still counted waits all of it).
  CHECK(std::chrono::steady_clock::now() - began < 10s);
}
