// Streamed request bodies and backpressure both ways, against libcurl and
// raw sockets on loopback: an upload reaches its owner as it arrives and
// never faster than the owner reads; an answer stream waits for its reader.
#include <curl/curl.h>
#include <doctest/doctest.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <future>
#include <string>
#include <thread>

#include "serve/body_reader.h"
#include "serve/server.h"
#include "serve_client.h"
#include "support/curl_body.h"
#include "support/eventually.h"

using namespace forgemeter::serve;
using namespace std::chrono_literals;

namespace {

constexpr std::uint64_t kUpload = std::uint64_t{64} << 20;

// The upload's byte at `at`: a pattern both ends can compute.
char pattern(std::uint64_t at) { return static_cast<char>('a' + (at * 7 + at / 4099) % 26); }

struct Upload {
  std::uint64_t next = 0;
  std::atomic<std::uint64_t> sent{0};
  long status = 0;
  std::string body;
  int curl_code = 0;
};

size_t fill(char* out, size_t size, size_t n, void* p) {
  auto* u = static_cast<Upload*>(p);
  size_t k = 0;
  for (; k < size * n && u->next < kUpload; ++k) out[k] = pattern(u->next++);
  return k;
}

int progress(void* p, curl_off_t, curl_off_t, curl_off_t, curl_off_t ulnow) {
  static_cast<Upload*>(p)->sent.store(static_cast<std::uint64_t>(ulnow));
  return 0;
}

void upload(const std::string& url, Upload& u) {
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "POST");
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(kUpload));
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, fill);
  curl_easy_setopt(curl, CURLOPT_READDATA, &u);
  curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
  curl_easy_setopt(curl, CURLOPT_XFERINFOFUNCTION, progress);
  curl_easy_setopt(curl, CURLOPT_XFERINFODATA, &u);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, fmtest::append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &u.body);
  curl_easy_setopt(curl, CURLOPT_TIMEOUT, 120L);
  u.curl_code = curl_easy_perform(curl);
  curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &u.status);
  curl_easy_cleanup(curl);
}

// Reads the whole body, checking it against the pattern: "ok N" or where it differed.
std::string check_body(BodyReader& reader) {
  std::uint64_t at = 0;
  char buf[65536];
  for (;;) {
    const long n = reader.read(buf, sizeof buf);
    if (n < 0) return "client gone at " + std::to_string(at);
    if (n == 0) return "ok " + std::to_string(at);
    for (long i = 0; i < n; ++i, ++at)
      if (buf[i] != pattern(at)) return "differs at " + std::to_string(at);
  }
}

ServerOptions streaming(std::size_t buffer) {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.max_body_bytes = buffer;
  o.stream_body = [](const ServeRequest& r) { return r.path == "/upload"; };
  return o;
}

}  // namespace

TEST_CASE("a streamed upload reaches its owner whole, and never faster than the owner reads") {
  std::promise<void> go;
  std::shared_future<void> released = go.get_future().share();
  std::jthread worker;
  Server server(streaming(std::size_t{1} << 20), [&](const ServeRequest& r, Reply reply) {
    REQUIRE(r.body_reader);
    CHECK(r.body_reader->length() == kUpload);
    worker = std::jthread([reader = r.body_reader, reply, released]() mutable {
      released.wait();  // an owner that forwards nothing yet
      reply.answer(200, {}, check_body(*reader));
    });
  });
  REQUIRE_FALSE(server.start());
  Upload u;
  std::jthread client([&] { upload("http://" + server.addresses().at(0) + "/upload", u); });
  // The client stalls: its bytes stop at the room's buffer plus what the
  // kernel's socket buffers hold (a few MiB on loopback), far below 64 MiB.
  std::uint64_t before = 0;
  REQUIRE(fmtest::eventually(
      [&] {
        const std::uint64_t now = u.sent.load();
        const bool still = now > 0 && now == before;
        before = now;
        std::this_thread::sleep_for(200ms);  // a stall is bytes not moving for a while
        return still;
      },
      30s));
  CHECK(u.sent.load() < kUpload / 2);
  go.set_value();
  client.join();
  CHECK(u.curl_code == 0);
  CHECK(u.status == 200);
  CHECK(u.body == "ok " + std::to_string(kUpload));
}

TEST_CASE("a client gone mid-upload ends the owner's read; an early answer still reaches the client") {
  std::promise<std::string> outcome;
  std::jthread worker;
  // The bytes and the close in one segment: libmicrohttpd takes a short read
  // for all there is and sees the close only at the idle timeout (apart, at
  // once). Either way the owner's read ends.
  ServerOptions o = streaming(std::size_t{64} << 10);
  o.idle_timeout = 2s;
  Server server(o, [&](const ServeRequest& r, Reply reply) {
    if (r.query == "early") return void(reply.answer(403, {}, "refused before reading\n"));
    worker = std::jthread([reader = r.body_reader, reply, &outcome]() mutable {
      outcome.set_value(check_body(*reader));
      reply.answer(200, {}, "");
    });
  });
  REQUIRE_FALSE(server.start());
  const int fd = fmtest::raw_connect(fmtest::port_of(server.addresses().at(0)));
  REQUIRE(fd >= 0);
  const std::string head = "POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000\r\n\r\n";
  std::string sent = head + std::string(1000, 'a');
  for (std::uint64_t i = 0; i < 1000; ++i) sent[head.size() + i] = pattern(i);
  REQUIRE(::send(fd, sent.data(), sent.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(sent.size()));
  ::close(fd);
  auto result = outcome.get_future();
  REQUIRE(result.wait_for(10s) == std::future_status::ready);
  CHECK(result.get() == "client gone at 1000");

  auto early = fmtest::fetch("http://" + server.addresses().at(0) + "/upload?early", "POST", std::string(200'000, 'x'));
  CHECK(early.status == 403);
  CHECK(early.body == "refused before reading\n");
}

TEST_CASE("a stream waits for a slow reader, within its patience") {
  ServerOptions o;
  o.listen = {"127.0.0.1:0"};
  o.max_stream_buffer = std::size_t{64} << 10;
  std::promise<bool> unread;
  std::jthread writer;
  Server server(o, [&](const ServeRequest& r, Reply reply) {
    reply.start_stream(200, {{"Content-Type", "application/octet-stream"}});
    writer = std::jthread([reply, &unread, stalled = r.path == "/stalled"]() mutable {
      const std::string piece(std::size_t{16} << 10, 'z');
      if (stalled) {  // nobody reads: the socket buffers fill, then the room's, then patience ends
        bool all = true;
        for (int i = 0; i < 4096 && all; ++i) all = reply.write_within(piece, 300ms);
        unread.set_value(all);
        return;
      }
      for (int i = 0; i < 1024; ++i) REQUIRE(reply.write_within(piece, 10s));  // 16 MiB through a 64 KiB buffer
      reply.end();
    });
  });
  REQUIRE_FALSE(server.start());
  auto got = fmtest::fetch("http://" + server.addresses().at(0) + "/read");
  CHECK(got.status == 200);
  CHECK(got.body.size() == std::size_t{16} << 20);
  writer.join();

  const int fd = fmtest::raw_connect(fmtest::port_of(server.addresses().at(0)));
  const std::string request = "GET /stalled HTTP/1.1\r\nHost: x\r\n\r\n";
  REQUIRE(::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size()));
  auto result = unread.get_future();
  REQUIRE(result.wait_for(30s) == std::future_status::ready);
  CHECK_FALSE(result.get());  // 64 MiB never fit: a write gave up after its patience
  ::close(fd);
}
