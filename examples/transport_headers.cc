// The examples of forgemeter/transport.h, exchange.h, cache.h, headers.h,
// curl_meter.h and lane.h,
// verbatim between the marks, so they stay code that compiles. main() runs
// those that need no network: transport.h's sends to api.github.com and is
// only compiled.
//
//   build/<dir>/examples/example_transport_headers
#include <curl/curl.h>
#include <forgemeter/cache.h>
#include <forgemeter/curl_meter.h>
#include <forgemeter/exchange.h>
#include <forgemeter/headers.h>
#include <forgemeter/lane.h>
#include <forgemeter/meter.h>
#include <forgemeter/transport.h>

#include <cstdio>
#include <string>
#include <string_view>

namespace {

void log(const std::string& message) { std::fprintf(stderr, "%s\n", message.c_str()); }

}  // namespace

// Compiled, not run: it sends a request to api.github.com.
void transport_h(const std::string& token) {
  // --- as in forgemeter/transport.h --------------------------------------------
  forgemeter::Meter meter;
  forgemeter::Transport transport({.meter = &meter});
  forgemeter::Request req{.url = "https://api.github.com/repos/o/r/pulls/7",
                          .installation = 101, .bearer = token};
  forgemeter::Response res = transport.perform(req);
  if (!res.ok()) log(res.error.message);     // a failed exchange is a value
  // -----------------------------------------------------------------------------
}

// Compiled, not run: it sends a request to api.github.com.
void exchange_h(forgemeter::Transport& transport) {
  auto use = [](const std::string& body) { std::printf("%zu bytes\n", body.size()); };
  // --- as in forgemeter/exchange.h ---------------------------------------------
  forgemeter::Request req{.url = "https://api.github.com/repos/o/r", .installation = 101};
  forgemeter::Response res = transport.perform(req);  // forgemeter/transport.h
  if (res.ok() && res.status == 200) use(res.body);
  // -----------------------------------------------------------------------------
}

bool cache_h() {
  forgemeter::Meter meter;
  // --- as in forgemeter/cache.h ------------------------------------------------
  forgemeter::Transport transport({.meter = &meter, .cache = {.max_bytes = 64 << 20}});
  // -----------------------------------------------------------------------------
  return transport.cache_figures().entries == 0 && transport.options().cache.max_bytes == 64 << 20;
}

bool headers_h() {
  forgemeter::Response res;
  res.headers.add_line("HTTP/1.1 200 OK\r\n");
  res.headers.add_field("ETag: \"abc\"\r\n");
  res.headers.add_field("X-RateLimit-Remaining: 4999\r\n");
  res.headers.add_line("\r\n");
  int fields = 0;
  std::string etag_seen;
  auto note = [&](std::string_view name, std::string_view value) { fields += !name.empty() && !value.empty(); };
  auto remember = [&](std::string_view etag) { etag_seen = etag; };

  // --- as in forgemeter/headers.h ----------------------------------------------
  for (auto [name, value] : res.headers) note(name, value);  // in order received, names as sent
  if (auto etag = res.headers.find("etag")) remember(*etag);  // first field of that name, any case
  // -----------------------------------------------------------------------------
  return fields == 2 && etag_seen == "\"abc\"";
}

std::size_t my_header_cb(char*, std::size_t size, std::size_t nitems, void* userdata) {
  ++*static_cast<int*>(userdata);
  return size * nitems;
}

// A handle with no URL set: the perform fails at once, before sending, and
// counts as one attempt with no answer.
bool curl_meter_h() {
  forgemeter::Meter meter({.sink = [](std::string_view line) { std::printf("%.*s\n", int(line.size()), line.data()); }});
  int header_lines = 0;
  void* my_data = &header_lines;
  struct Cleanup {  // declared first: the handle outlives the CurlMeter
    CURL* h = nullptr;
    ~Cleanup() { curl_easy_cleanup(h); }
  } cleanup;

  // --- as in forgemeter/curl_meter.h -------------------------------------------
  CURL* h = curl_easy_init();                 // your handle, your options
  forgemeter::CurlMeter metered(h, meter, {.installation = 101});
  metered.chain_header_callback(my_header_cb, my_data);  // instead of CURLOPT_HEADERFUNCTION
  int rc = metered.perform();                 // curl_easy_perform + bookkeeping
  // -----------------------------------------------------------------------------
  cleanup.h = h;
  return rc != CURLE_OK && header_lines == 0 && metered.hops().size() <= 1;
}

bool lane_h() {
  bool in_lane = false;
  auto sweep_once = [&] { in_lane = forgemeter::current_lane() == forgemeter::Lane{"merge-gate-sweeper"}; };

  // --- as in forgemeter/lane.h -------------------------------------------------
  forgemeter::LaneScope scope{forgemeter::Lane{"merge-gate-sweeper"}};
  sweep_once();  // every request this thread sends until `scope` ends is in that lane
  // -----------------------------------------------------------------------------
  return in_lane;
}

int main() {
  const bool headers = headers_h(), curl_meter = curl_meter_h(), lane = lane_h(), cache = cache_h();
  std::printf("headers.h %s, curl_meter.h %s, lane.h %s, cache.h %s\n", headers ? "ok" : "FAILED",
              curl_meter ? "ok" : "FAILED", lane ? "ok" : "FAILED", cache ? "ok" : "FAILED");
  return headers && curl_meter && lane && cache ? 0 : 1;
}
