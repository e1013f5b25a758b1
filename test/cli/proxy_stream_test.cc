// Bodies that never fit in memory, through `forgemeter proxy`: a 1 GB
// download and a 100 MB upload arrive byte for byte (digests compared) and
// the proxy's peak resident memory grows by at most 32 MB; a client that
// hangs up 1 MiB into a 1 GB download ends the upstream transfer. Not under ASan
// (its quarantine is memory the proxy did not ask for): label no-asan.
#include <curl/curl.h>
#include <doctest/doctest.h>

#include <fstream>
#include <string>

#include "bulk_peer.h"
#include "proxy_run.h"
#include "support/eventually.h"

using namespace fmtest;

namespace {

constexpr std::uint64_t kDownload = std::uint64_t{1} << 30;
constexpr std::uint64_t kUpload = std::uint64_t{100} << 20;

// VmHWM (peak resident set) of a process, in KiB.
long peak_rss_kib(int pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("VmHWM:", 0) == 0) return std::stol(line.substr(6));
  return -1;
}

struct Sink {
  std::uint64_t at = 0, hash = 14695981039346656037ULL;
  bool pattern = true;
};

size_t take(char* p, size_t size, size_t n, void* s) {
  auto* sink = static_cast<Sink*>(s);
  for (size_t i = 0; i < size * n; ++i) sink->pattern = sink->pattern && p[i] == bulk_byte(sink->at + i);
  sink->hash = bulk_digest(p, size * n, sink->hash);
  sink->at += size * n;
  return size * n;
}

struct Source {
  std::uint64_t at = 0;
};

size_t give(char* p, size_t size, size_t n, void* s) {
  auto* src = static_cast<Source*>(s);
  size_t k = 0;
  for (; k < size * n && src->at < kUpload; ++k) p[k] = bulk_byte(src->at++);
  return k;
}

}  // namespace

TEST_CASE("a 1 GB download and a 100 MB upload cross the proxy whole, its memory flat") {
  BulkPeer upstream;
  ProxyRun proxy(upstream.url(), {"--cache", "0"});
  const long before = peak_rss_kib(proxy.pid());
  REQUIRE(before > 0);

  CURL* curl = curl_easy_init();
  Sink sink;
  const std::string down = proxy.url() + "/download/" + std::to_string(kDownload);
  curl_easy_setopt(curl, CURLOPT_URL, down.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  CHECK(curl_easy_perform(curl) == CURLE_OK);
  CHECK(sink.at == kDownload);
  CHECK(sink.pattern);

  curl_easy_reset(curl);
  Source source;
  std::string answer;
  const std::string up = proxy.url() + "/upload";
  curl_easy_setopt(curl, CURLOPT_URL, up.c_str());
  curl_easy_setopt(curl, CURLOPT_UPLOAD, 1L);
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, "POST");
  curl_easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(kUpload));
  curl_easy_setopt(curl, CURLOPT_READFUNCTION, give);
  curl_easy_setopt(curl, CURLOPT_READDATA, &source);
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char* p, size_t size, size_t n, void* s) {
        static_cast<std::string*>(s)->append(p, size * n);
        return size * n;
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &answer);
  CHECK(curl_easy_perform(curl) == CURLE_OK);
  curl_easy_cleanup(curl);
  std::uint64_t expected = 14695981039346656037ULL;
  for (std::uint64_t at = 0; at < kUpload;) {  // the digest the upstream should have computed
    char buf[65536];
    std::size_t n = 0;
    for (; n < sizeof buf && at < kUpload; ++n) buf[n] = bulk_byte(at++);
    expected = bulk_digest(buf, n, expected);
  }
  CHECK(answer == std::to_string(kUpload) + " " + std::to_string(expected));

  const long after = peak_rss_kib(proxy.pid());
  MESSAGE("proxy peak RSS " << before / 1024 << " MiB before, " << after / 1024 << " MiB after 1 GiB down, 100 MiB up");
  CHECK(after - before <= 32 * 1024);
}

TEST_CASE("a client that hangs up mid-download ends the upstream transfer, and the proxy serves on") {
  BulkPeer upstream;
  ProxyRun proxy(upstream.url(), {"--cache", "0"});
  CURL* curl = curl_easy_init();
  std::uint64_t got = 0;
  const std::string down = proxy.url() + "/download/" + std::to_string(kDownload);
  curl_easy_setopt(curl, CURLOPT_URL, down.c_str());
  curl_easy_setopt(
      curl, CURLOPT_WRITEFUNCTION, +[](char*, size_t size, size_t n, void* s) -> size_t {
        auto& at = *static_cast<std::uint64_t*>(s);
        at += size * n;
        return at < (std::uint64_t{1} << 20) ? size * n : 0;  // gone after 1 MiB
      });
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &got);
  CHECK(curl_easy_perform(curl) == CURLE_WRITE_ERROR);
  curl_easy_cleanup(curl);
  // The proxy's write fails, its Transport ends the upstream transfer, and
  // the upstream's next send finds the connection closed. What was in
  // flight is the sockets' and the proxy's buffers: a few MiB on loopback,
  // against the 1 GiB a transfer left running would send.
  CHECK(eventually([&] { return upstream.downloads_cut() == 1; }, std::chrono::seconds(10)));
  MESSAGE("upstream sent " << upstream.bytes_sent_before_cut() / 1024 << " KiB before the cut");
  CHECK(upstream.bytes_sent_before_cut() < (std::uint64_t{64} << 20));
  const std::string small = proxy.url() + "/download/1000";
  curl = curl_easy_init();
  Sink sink;
  curl_easy_setopt(curl, CURLOPT_URL, small.c_str());
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, take);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &sink);
  CHECK(curl_easy_perform(curl) == CURLE_OK);
  CHECK(sink.at == 1000);
  curl_easy_cleanup(curl);
  // Nothing is left in flight: SIGTERM stops it at once, not after the
  // 10 s --shutdown-grace that an exchange still counted would hold it.
  const auto stopping = std::chrono::steady_clock::now();
  CHECK(proxy.stop() == 0);
  CHECK(std::chrono::steady_clock::now() - stopping < std::chrono::seconds(5));
}
