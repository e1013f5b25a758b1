#include "lease/etcd/watcher.h"

#include <curl/curl.h>

#include <algorithm>
#include <chrono>
#include <string_view>

#include "lease/call_bound.h"
#include "lease/etcd/codec.h"

namespace forgemeter::etcd {
namespace {

using namespace std::chrono_literals;

constexpr Duration kFirstBackoff = 50ms, kMaxBackoff = 2s;
constexpr std::size_t kMaxLine = 1 << 20;  // one message: a few events of a few hundred bytes

}  // namespace

// What the write callback sees of one stream.
struct Watcher::Stream {
  explicit Stream(Watcher& owner) : w(owner) {}
  Watcher& w;
  std::string line;
  bool opened = false;
  bool ended = false;  // canceled by etcd, or unreadable: end the transfer

  void message(std::string_view text) {
    std::string error;
    auto m = parse_watch(text, error);
    if (!m) return;
    if (m->created && !opened) {
      opened = true;
      w.board_.changed_all();  // a change before the watch opened was not heard
      w.watching_.store(true, std::memory_order_release);
    }
    const std::string_view prefix = w.options_.prefix;
    for (const auto& key : m->keys)
      if (key.size() > prefix.size() && key.compare(0, prefix.size(), prefix) == 0)
        w.board_.changed(std::string_view(key).substr(prefix.size()));
    if (m->revision > 0) w.next_revision_ = std::max(w.next_revision_, m->revision + 1);
    if (m->canceled) {
      if (m->compacted > 0) w.next_revision_ = 0;  // the revisions we wanted are gone: from now
      ended = true;
    }
  }

  static std::size_t take(char* data, std::size_t size, std::size_t n, void* self) noexcept {
    auto& s = *static_cast<Stream*>(self);
    const std::size_t bytes = size * n;
    try {
      for (std::size_t i = 0; i < bytes; ++i) {
        if (data[i] != '\n') {
          if (s.line.size() >= kMaxLine) return 0;
          s.line += data[i];
          continue;
        }
        s.message(s.line);
        s.line.clear();
      }
    } catch (...) {
      return 0;
    }
    return s.ended ? 0 : bytes;  // 0 ends the transfer
  }
};

Watcher::Watcher(const EtcdStoreOptions& options, Gateway& gateway, lease_detail::ChangeBoard& board,
                 std::function<std::int64_t()> tracked)
    : options_(options), gateway_(gateway), board_(board), tracked_(std::move(tracked)) {}

Watcher::~Watcher() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

void Watcher::start() {
  if (started_.exchange(true)) return;
  const std::int64_t seen = tracked_();
  next_revision_ = seen > 0 ? seen + 1 : 0;
  try {
    thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
  } catch (const std::system_error&) {  // no thread: candidates poll, as without a watch
  }
}

void Watcher::run(const std::stop_token& stop) {
  Duration backoff = kFirstBackoff;
  for (std::size_t member = 0; !stop.stop_requested(); member = (member + 1) % options_.endpoints.size()) {
    if (stream(member, stop)) {
      backoff = kFirstBackoff;
      continue;
    }
    system_clock().wait_until(system_clock().steady_now() + backoff, stop);
    backoff = std::min(backoff * 2, kMaxBackoff);
  }
}

bool Watcher::stream(std::size_t member, const std::stop_token& stop) {
  lease_detail::CallBound connecting(Deadline::after(system_clock(), options_.attempt_timeout, stop));
  const Reply token = gateway_.token(connecting);
  if (!token.ok) return false;
  CURLM* multi = curl_multi_init();
  CURL* e = curl_easy_init();
  if (multi == nullptr || e == nullptr) {
    if (e != nullptr) curl_easy_cleanup(e);
    if (multi != nullptr) curl_multi_cleanup(multi);
    return false;
  }
  Stream s(*this);
  const std::string url = options_.endpoints[member] + "/v3/watch";
  const std::string body = watch_request(options_.prefix, next_revision_);
  const std::string auth = "Authorization: " + token.body;
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  if (!token.body.empty()) headers = curl_slist_append(headers, auth.c_str());
  curl_easy_setopt(e, CURLOPT_URL, url.c_str());
  set_transport(e, options_);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, headers);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, body.c_str());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, &Stream::take);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &s);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(options_.attempt_timeout.count()));
  curl_multi_add_handle(multi, e);
  // The stream has no end of its own: it runs until etcd ends it, the
  // connection fails, or the store stops (the stop's eventfd beside it).
  lease_detail::CallBound open(Deadline::after(system_clock(), std::chrono::hours(24 * 365), stop));
  for (;;) {
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK || running == 0 || stop.stop_requested()) break;
    curl_waitfd wake{open.stop_fd(), CURL_WAIT_POLLIN, 0};
    curl_multi_poll(multi, &wake, open.stop_fd() >= 0 ? 1U : 0U, 1000, nullptr);
  }
  curl_multi_remove_handle(multi, e);
  curl_slist_free_all(headers);
  curl_easy_cleanup(e);
  curl_multi_cleanup(multi);
  const bool opened = s.opened;
  if (opened) {
    watching_.store(false, std::memory_order_release);
    board_.changed_all();  // changes while it was down were not heard
  }
  return opened;
}

}  // namespace forgemeter::etcd
