#include "lease/etcd/gateway.h"

#include <curl/curl.h>
#include <poll.h>

#include <algorithm>
#include <chrono>

#include "core/terminal_text.h"
#include "lease/etcd/codec.h"

namespace forgemeter::etcd {
namespace {

using lease_detail::CallBound;
using std::chrono::duration_cast;
using std::chrono::milliseconds;

constexpr std::size_t kMaxAnswer = 1 << 20;  // a lease's answers are a few hundred bytes

// gRPC codes etcd answers with.
constexpr int kDeadlineExceeded = 4, kUnavailable = 14, kUnauthenticated = 16;

void global_init() {
  static const CURLcode rc = curl_global_init(CURL_GLOBAL_DEFAULT);
  (void)rc;  // a failure shows as curl_easy_init() returning null
}

std::size_t collect(char* data, std::size_t size, std::size_t n, void* out) noexcept {
  auto& body = *static_cast<std::string*>(out);
  const std::size_t bytes = size * n;
  if (body.size() + bytes > kMaxAnswer) return 0;  // ends the transfer: CURLE_WRITE_ERROR
  try {
    body.append(data, bytes);
  } catch (...) {
    return 0;
  }
  return bytes;
}

// Error texts end up in log lines: no control bytes, bounded.
std::string shown(std::string_view s) { return core_detail::terminal_text(s, 300); }

// TLS failures no retry cures: the member's certificate is not trusted, our
// own files are unusable, or the member refused our certificate (an alert
// during the handshake or at the first read, under TLS 1.3).
bool refused_credentials(CURLcode result, std::string_view message) {
  switch (result) {
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR: return true;
    default: break;
  }
  return message.find("alert") != std::string_view::npos && (message.find("certificate") != std::string_view::npos ||
                                                             message.find("unknown ca") != std::string_view::npos);
}

// Between rounds in which every member failed: up to 50 ms (poll_ms()), or until the stop.
void pause(const CallBound& bound) {
  pollfd p{bound.stop_fd(), POLLIN, 0};
  ::poll(&p, 1, bound.poll_ms());
}

}  // namespace

void set_transport(void* easy, const EtcdStoreOptions& options) {
  CURL* e = easy;
  curl_easy_setopt(e, CURLOPT_PROTOCOLS_STR, "http,https");
  curl_easy_setopt(e, CURLOPT_PROXY, "");  // a member is reached directly, whatever http_proxy says
  curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
  if (!options.ca_file.empty()) curl_easy_setopt(e, CURLOPT_CAINFO, options.ca_file.c_str());
  if (!options.cert_file.empty()) curl_easy_setopt(e, CURLOPT_SSLCERT, options.cert_file.c_str());
  if (!options.key_file.empty()) curl_easy_setopt(e, CURLOPT_SSLKEY, options.key_file.c_str());
}

struct Gateway::Connection {
  CURLM* multi = curl_multi_init();
  CURL* easy = curl_easy_init();
  std::string answer;
  char error[CURL_ERROR_SIZE] = {};

  Connection() = default;
  ~Connection() {
    if (easy != nullptr) curl_easy_cleanup(easy);
    if (multi != nullptr) curl_multi_cleanup(multi);
  }
  Connection(const Connection&) = delete;
  Connection& operator=(const Connection&) = delete;
  bool usable() const { return multi != nullptr && easy != nullptr; }
};

struct Gateway::Attempt {
  enum class Kind {
    answered,  // 200: `body`
    next,      // this member cannot answer now: try the next one
    token,     // the auth token was refused: fetch another
    final,     // etcd refused the request for good: `error`
    over,      // the call's bound passed or it was stopped
  } kind = Kind::next;
  std::string body;
  std::string error;
};

Gateway::Gateway(const EtcdStoreOptions& options) : options_(options) { global_init(); }
Gateway::~Gateway() = default;

std::unique_ptr<Gateway::Connection> Gateway::checkout(const CallBound& bound) {
  core_detail::UniqueLock lock(mu_);
  for (;;) {
    if (!idle_.empty()) {
      auto c = std::move(idle_.back());
      idle_.pop_back();
      return c;
    }
    if (open_ < options_.max_connections) {
      ++open_;
      lock.unlock();
      auto c = std::make_unique<Connection>();
      if (c->usable()) return c;
      lock.lock();
      --open_;
      return nullptr;
    }
    if (bound.passed()) return nullptr;
    freed_.wait_for(lock.native(), milliseconds(bound.poll_ms()));
  }
}

void Gateway::checkin(std::unique_ptr<Connection> c) {
  core_detail::MutexLock lock(mu_);
  idle_.push_back(std::move(c));
  freed_.notify_one();
}

namespace {

// How a transfer ended: curl's result and the HTTP status, or abandoned when
// the call's bound passed first (removing an unfinished transfer closes its
// connection).
struct Transfer {
  CURLcode result = CURLE_OK;
  bool abandoned = false;
  long status = 0;
};

// Runs `e` on `multi` until it is done, the call's bound passes or it is stopped.
Transfer perform(CURLM* multi, CURL* e, const CallBound& bound) {
  Transfer t;
  curl_multi_add_handle(multi, e);
  for (;;) {
    int running = 0;
    if (curl_multi_perform(multi, &running) != CURLM_OK) {
      t.result = CURLE_FAILED_INIT;
      break;
    }
    bool done = false;
    int queued = 0;
    while (CURLMsg* m = curl_multi_info_read(multi, &queued))
      if (m->msg == CURLMSG_DONE) {
        t.result = m->data.result;
        done = true;
      }
    if (done) break;
    if (bound.passed()) {
      t.abandoned = true;
      break;
    }
    curl_waitfd stop{bound.stop_fd(), CURL_WAIT_POLLIN, 0};
    curl_multi_poll(multi, &stop, bound.stop_fd() >= 0 ? 1U : 0U, bound.poll_ms(), nullptr);
  }
  curl_easy_getinfo(e, CURLINFO_RESPONSE_CODE, &t.status);
  curl_multi_remove_handle(multi, e);
  return t;
}

// One POST to a member: where, with what, and how long it may take.
struct Request {
  std::string url;
  curl_slist* headers;
  const std::string& body;
  long timeout_ms;
};

// Sets `e` up for `r`, its answer into `answer`, curl's words into `error`.
void set_request(CURL* e, const EtcdStoreOptions& options, const Request& r, std::string& answer, char* error) {
  answer.clear();
  curl_easy_setopt(e, CURLOPT_URL, r.url.c_str());
  set_transport(e, options);
  curl_easy_setopt(e, CURLOPT_HTTPHEADER, r.headers);
  curl_easy_setopt(e, CURLOPT_POSTFIELDS, r.body.c_str());
  curl_easy_setopt(e, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  curl_easy_setopt(e, CURLOPT_WRITEFUNCTION, collect);
  curl_easy_setopt(e, CURLOPT_WRITEDATA, &answer);
  error[0] = '\0';
  curl_easy_setopt(e, CURLOPT_ERRORBUFFER, error);
  curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, r.timeout_ms);
  curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT_MS, r.timeout_ms);
}

}  // namespace

Gateway::Attempt Gateway::attempt(Connection& c, std::size_t member, std::string_view path, const std::string& body,
                                  const std::string& token, const CallBound& bound) {
  using Kind = Attempt::Kind;
  const std::string& endpoint = options_.endpoints[member];
  curl_slist* headers = curl_slist_append(nullptr, "Content-Type: application/json");
  const std::string auth = "Authorization: " + token;
  if (!token.empty()) headers = curl_slist_append(headers, auth.c_str());
  const auto left = duration_cast<milliseconds>(bound.deadline().remaining());
  const long timeout_ms =
      static_cast<long>(std::max<milliseconds::rep>(1, std::min(left, options_.attempt_timeout).count()));
  set_request(c.easy, options_, Request{endpoint + std::string(path), headers, body, timeout_ms}, c.answer, c.error);
  const Transfer t = perform(c.multi, c.easy, bound);
  const long status = t.status;
  curl_easy_setopt(c.easy, CURLOPT_HTTPHEADER, nullptr);
  curl_slist_free_all(headers);

  if (t.abandoned)
    return {Kind::over,
            {},
            endpoint + (bound.stopped() ? ": stopped: the caller gave up" : ": no answer by the call's deadline")};
  if (t.result != CURLE_OK) {
    const std::string why = endpoint + ": " + shown(c.error[0] != '\0' ? c.error : curl_easy_strerror(t.result));
    if (refused_credentials(t.result, c.error)) return {Kind::final, {}, why + " (permanent: check the TLS files)"};
    return {Kind::next, {}, why};
  }
  if (status == 200) return {Kind::answered, std::move(c.answer), {}};
  const GatewayError err = parse_error(c.answer);
  const std::string what = endpoint + ": etcd answered " + std::to_string(status) +
                           (err.message.empty() ? std::string() : " (" + shown(err.message) + ")");
  if (err.code == kUnauthenticated && !token.empty()) return {Kind::token, {}, what};
  if (err.code == kUnavailable || err.code == kDeadlineExceeded || (err.code == 0 && status >= 500))
    return {Kind::next, {}, what};
  return {Kind::final, {}, what + " (permanent: check the store's configuration)"};
}

Gateway::Attempt Gateway::token_for(Connection& c, std::size_t member, const std::string& stale,
                                    const CallBound& bound) {
  if (options_.user.empty()) return {Attempt::Kind::answered, {}, {}};
  {
    core_detail::MutexLock lock(mu_);
    if (!token_.empty() && token_ != stale) return {Attempt::Kind::answered, token_, {}};
  }
  Attempt a =
      attempt(c, member, "/v3/auth/authenticate", authenticate_request(options_.user, options_.password), {}, bound);
  if (a.kind == Attempt::Kind::final) a.error = "etcd refused user " + shown(options_.user) + ": " + a.error;
  if (a.kind != Attempt::Kind::answered) return a;
  std::string error;
  auto fresh = parse_token(a.body, error);
  if (!fresh) return {Attempt::Kind::next, {}, options_.endpoints[member] + ": " + error};
  core_detail::MutexLock lock(mu_);
  token_ = *fresh;
  return {Attempt::Kind::answered, *fresh, {}};
}

Gateway::Attempt Gateway::authenticated(Connection& c, std::size_t member, std::string_view path,
                                        const std::string& body, const CallBound& bound) {
  Attempt t = token_for(c, member, {}, bound);
  if (t.kind != Attempt::Kind::answered) return t;
  Attempt a = attempt(c, member, path, body, t.body, bound);
  if (a.kind != Attempt::Kind::token) return a;
  t = token_for(c, member, t.body, bound);  // it expired: once more with a fresh one
  if (t.kind != Attempt::Kind::answered) return t;
  a = attempt(c, member, path, body, t.body, bound);
  if (a.kind == Attempt::Kind::token) a.kind = Attempt::Kind::final;
  return a;
}

Reply Gateway::token(const CallBound& bound) {
  auto c = checkout(bound);
  if (!c) return {false, {}, "no connection free by the deadline"};
  const std::size_t n = options_.endpoints.size(), first = preferred_.load(std::memory_order_relaxed) % n;
  Attempt t{Attempt::Kind::over, {}, "deadline passed before the call"};
  for (std::size_t i = 0; i < n && !bound.passed(); ++i) {
    t = token_for(*c, (first + i) % n, {}, bound);
    if (t.kind == Attempt::Kind::answered || t.kind == Attempt::Kind::final) break;
  }
  checkin(std::move(c));
  if (t.kind == Attempt::Kind::answered) return {true, std::move(t.body), {}};
  return {false, {}, std::move(t.error)};
}

Reply Gateway::post(std::string_view path, const std::string& body, const CallBound& bound) {
  auto c = checkout(bound);
  if (!c) return {false, {}, bound.passed() ? "no connection free by the deadline" : "libcurl could not start"};
  const std::size_t n = options_.endpoints.size(), first = preferred_.load(std::memory_order_relaxed) % n;
  std::vector<std::string> last(n);  // each member's latest failure: the error stays one short line
  Reply out;
  // Round after round while the call has time: a cluster electing a leader
  // answers again within an election timeout or two.
  for (std::size_t i = 0; !bound.passed(); ++i) {
    if (i > 0 && i % n == 0) pause(bound);
    const std::size_t member = (first + i) % n;
    Attempt a = authenticated(*c, member, path, body, bound);
    if (a.kind == Attempt::Kind::answered) {
      preferred_.store(member, std::memory_order_relaxed);
      out = {true, std::move(a.body), {}};
      break;
    }
    if (a.kind == Attempt::Kind::final) {  // refused for good: that is the call's answer
      out.error = std::move(a.error);
      break;
    }
    last[member] = std::move(a.error);
    if (a.kind != Attempt::Kind::next) break;  // out of time, or stopped
  }
  checkin(std::move(c));
  if (out.ok || !out.error.empty()) return out;
  for (const auto& e : last)
    if (!e.empty()) out.error += (out.error.empty() ? "" : "; ") + e;
  if (out.error.empty()) out.error = bound.stopped() ? "stopped before the call" : "deadline passed before the call";
  return out;
}

}  // namespace forgemeter::etcd
