// Request::body_source against a loopback server that checksums what it
// reads (upload_server.h): every byte arrives in order, framed by
// Content-Length or chunked; the Transport never holds the body (the
// largest piece asked of the source, and the process's peak RSS); a source
// that fails ends the transfer, still counted; a fed request is sent once.
#include <doctest/doctest.h>
#include <sys/resource.h>

#include <algorithm>
#include <stdexcept>

#include "transport_rig.h"
#include "upload_server.h"

using namespace fmtest;
using forgemeter::AnswerClass;
using forgemeter::TransportErrc;

namespace {

class UploadRig {
 public:
  explicit UploadRig(forgemeter::TransportOptions t = {}) : transport_(wired(std::move(t))) {}

  UploadServer& server() { return server_; }
  forgemeter::Transport& transport() { return transport_; }
  std::string host() const { return "127.0.0.1:" + server_.url("").substr(server_.url("").rfind(':') + 1); }
  Counted counted() {
    meter_.flush();
    std::lock_guard lock(mu_);
    return Rig::parse(lines_);
  }

 private:
  forgemeter::TransportOptions wired(forgemeter::TransportOptions t) {
    t.meter = &meter_;
    t.clock = &forgemeter::system_clock();
    return t;
  }

  UploadServer server_;
  forgemeter::ManualClock clock_{mid_hour()};
  std::mutex mu_;
  std::vector<std::string> lines_;
  forgemeter::Meter meter_{{.clock = &clock_, .sink = [this](std::string_view l) {
                              std::lock_guard lock(mu_);
                              lines_.emplace_back(l);
                            }}};
  forgemeter::Transport transport_;
};

// `size` deterministic bytes made as they are asked for, checksummed as given.
struct PatternSource {
  std::uint64_t size = 0;
  std::optional<std::uint64_t> fail_at{};  // says it failed once this many bytes were given
  std::uint64_t given = 0;
  std::size_t largest_ask = 0;  // the largest buffer it was asked to fill
  Checksum sum;

  forgemeter::BodySource source() {
    return [this](std::span<char> buffer) -> std::optional<std::size_t> {
      largest_ask = std::max(largest_ask, buffer.size());
      if (fail_at && given >= *fail_at) return std::nullopt;
      const auto n = static_cast<std::size_t>(std::min<std::uint64_t>(buffer.size(), size - given));
      for (std::size_t i = 0; i < n; ++i) buffer[i] = static_cast<char>(((given + i) * 7 + (given + i) / 4096) % 251);
      sum.add({buffer.data(), n});
      given += n;
      return n;
    };
  }
  // What the server answers when it got exactly these bytes.
  std::string expected(const std::string& method, const std::string& framing) const {
    return method + " " + std::to_string(given) + " " + std::to_string(sum.h) + " " + framing;
  }
};

forgemeter::Request fed(UploadRig& rig, const std::string& path, PatternSource& src, bool known_length) {
  forgemeter::Request r{.method = "POST", .url = rig.server().url(path), .installation = 101, .bearer = "tok"};
  r.body_source = src.source();
  if (known_length) r.body_length = src.size;
  return r;
}

long peak_rss_kib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss;
}

}  // namespace

TEST_CASE("a 100 MB upload from a source: every byte arrives (checksums), with Content-Length, never held whole") {
  UploadRig rig;
  PatternSource src{.size = 100u << 20};
  const long peak_before = peak_rss_kib();
  const auto res = rig.transport().perform(fed(rig, "/upload", src, true));
  REQUIRE(res.ok());
  CHECK(res.status == 200);
  CHECK(src.given == src.size);
  CHECK(res.body == src.expected("POST", "length"));
  CHECK(src.largest_ask <= (1u << 20));  // asked piece by piece, never for the whole
#if !defined(__SANITIZE_ADDRESS__) && !defined(__SANITIZE_THREAD__)
  CHECK(peak_rss_kib() - peak_before < 32 * 1024);  // a copy of the body would raise the peak by 100 MB
#endif
  const auto c = rig.counted();
  CHECK(c.total == 1);
  CHECK(c.answered(rig.host(), AnswerClass::ok2xx) == 1);
}

TEST_CASE("an upload of unknown length is sent chunked; PUT keeps its method") {
  UploadRig rig;
  for (const std::string method : {"POST", "PUT"}) {
    CAPTURE(method);
    PatternSource src{.size = (8u << 20) + 12345};
    auto req = fed(rig, "/upload", src, false);
    req.method = method;
    const auto res = rig.transport().perform(req);
    REQUIRE(res.ok());
    CHECK(res.body == src.expected(method, "chunked"));
  }
}

TEST_CASE("a source that fails mid-way ends the transfer: source_failed, the attempt counted") {
  UploadRig rig;
  SUBCASE("it says so") {
    PatternSource src{.size = 10u << 20, .fail_at = 1u << 20};
    const auto res = rig.transport().perform(fed(rig, "/upload", src, true));
    CHECK(res.error.code == TransportErrc::source_failed);
    CHECK(res.error.message.find("body_source") != std::string::npos);
    CHECK(res.hops.size() == 1);
  }
  SUBCASE("it throws") {
    PatternSource src{.size = 10u << 20};
    auto req = fed(rig, "/upload", src, false);
    req.body_source = [](std::span<char>) -> std::optional<std::size_t> { throw std::runtime_error("disk gone"); };
    const auto res = rig.transport().perform(req);
    CHECK(res.error.code == TransportErrc::source_failed);
    CHECK(res.error.message.find("disk gone") != std::string::npos);
  }
  SUBCASE("it ends short of body_length") {
    PatternSource src{.size = 1000};
    auto req = fed(rig, "/upload", src, false);
    req.body_length = 5000;
    const auto res = rig.transport().perform(req);
    CHECK(res.error.code == TransportErrc::source_failed);
    CHECK(to_string(res.error.code) == "source_failed");
  }
  const auto c = rig.counted();
  CHECK(c.total == 1);  // the attempt went on the wire
  CHECK(c.answered(rig.host(), AnswerClass::none) == 1);
}

TEST_CASE("a fed request is sent once: a retryable 503 stands, a 307 is handed back unfollowed") {
  forgemeter::TransportOptions opt;
  opt.rate_limits.retry = {.enabled = true,
                           .max_retries = 3,
                           .base_backoff = std::chrono::milliseconds(1),
                           .max_backoff = std::chrono::milliseconds(2)};
  UploadRig rig(opt);
  PatternSource busy{.size = 100000};
  auto req = fed(rig, "/status/503", busy, true);
  req.method = "PUT";  // idempotent: its 503 would be retried with a held body
  const auto res = rig.transport().perform(req);
  REQUIRE(res.ok());
  CHECK(res.status == 503);
  CHECK(res.hops.size() == 1);
  CHECK(res.body == busy.expected("PUT", "length"));
  CHECK(rig.server().requests() == 1);

  PatternSource moved{.size = 100000};
  const auto res2 = rig.transport().perform(fed(rig, "/moved", moved, true));
  REQUIRE(res2.ok());
  CHECK(res2.status == 307);
  CHECK(res2.header("Location") == rig.server().url("/elsewhere"));
  CHECK(res2.hops.size() == 1);
  CHECK(rig.server().elsewhere() == 0);
  CHECK(rig.counted().total == 2);
}

TEST_CASE("a body_source with a body, on a HEAD, or a body_length without one: invalid_request, nothing sent") {
  UploadRig rig;
  PatternSource src{.size = 10};
  auto both = fed(rig, "/upload", src, true);
  both.body = "x";
  auto head = fed(rig, "/upload", src, true);
  head.method = "HEAD";
  forgemeter::Request length_alone{.method = "POST", .url = rig.server().url("/upload")};
  length_alone.body_length = 10;
  for (const auto& r : {both, head, length_alone})
    CHECK(rig.transport().perform(r).error.code == TransportErrc::invalid_request);
  CHECK(rig.server().requests() == 0);
  CHECK(src.given == 0);
}
