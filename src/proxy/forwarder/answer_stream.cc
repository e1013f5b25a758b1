// forward() (answer_stream.h): one request on its worker.
#include "proxy/forwarder/answer_stream.h"

#include <optional>

#include "core/ascii.h"
#include "core/authorization.h"
#include "proxy/cache_status.h"
#include "proxy/credential_keys.h"
#include "proxy/header_filter.h"
#include "proxy/refusal.h"

namespace forgemeter::proxy {
namespace {

using core_detail::iequals;

// What of an answer's body is kept to learn an installation token from.
constexpr std::size_t kTokenAnswerBytes = std::size_t{64} * 1024;

// Up to this much of an answer is held and handed to the serving room whole,
// with its length: one hand-over (and one wake of the connection) for the
// answers a forge mostly sends; past it the answer streams from there on.
constexpr std::size_t kHeldAnswer = std::size_t{64} * 1024;

// The client's side of one answer: its head made at the first piece, its
// body rewritten when JSON, held while small, streamed once it is not.
class AnswerStream {
 public:
  AnswerStream(Route& route, const Outgoing& out, serve::Reply reply)
      : route_(route), out_(out), reply_(std::move(reply)), body_(*out.rewriter) {}

  bool started() const noexcept { return started_; }

  // A piece of the forge's answer; false ends the transfer (the client is gone).
  bool piece(const BodyChunk& c) {
    if (!started_) {
      started_ = true;
      json_ = rewrites_body(c.headers->find("Content-Type").value_or(""));
      status_ = c.status;
      head_ = head(*c.headers, c.cache);
    }
    if (keep_for_tokens_ && kept_.size() + c.bytes.size() <= kTokenAnswerBytes) kept_.append(c.bytes);
    std::string rewritten;
    if (json_) body_.write(c.bytes, rewritten);
    const std::string_view bytes = json_ ? std::string_view(rewritten) : c.bytes;
    if (!streaming_) {
      if (held_.size() + bytes.size() <= kHeldAnswer) return held_.append(bytes), true;
      streaming_ = true;
      if (!reply_.start_stream(status_, std::move(head_))) return false;
      if (!held_.empty() && !reply_.write_within(held_, route_.patience)) return false;
      std::string().swap(held_);
    }
    return bytes.empty() || reply_.write_within(bytes, route_.patience);
  }

  // The transfer is over. A body cut upstream is never passed off as whole:
  // a stream is cut for the client too, a held answer becomes a 502.
  void finish(const Response& res) {
    if (!res.ok() && streaming_) return void(reply_.abort());
    if (!res.ok()) {
      const Refusal r = upstream_unreachable(to_string(res.error.code));
      return void(reply_.answer(r.status, r.headers, r.body));
    }
    std::string tail;
    if (json_) body_.finish(tail);
    if (!streaming_) return void(reply_.answer(status_, std::move(head_), held_ + tail));
    if (!tail.empty()) reply_.write_within(tail, route_.patience);
    reply_.end();
  }

  // The answer's head as the client gets it.
  std::vector<serve::Field> head(const Headers& from, CacheOutcome cache) const {
    std::vector<serve::Field> out;
    for (serve::Field& f : filter_response(from)) {
      if (iequals(f.first, "Content-Encoding")) continue;  // the Transport hands the body decoded
      if (iequals(f.first, "Location") || iequals(f.first, "Link")) {
        auto rewritten =
            iequals(f.first, "Location") ? out_.rewriter->location(f.second) : out_.rewriter->link(f.second);
        if (rewritten.refused) continue;  // a field that cannot be rewritten safely is not sent
        f.second = std::move(rewritten.value);
      }
      out.push_back(std::move(f));
    }
    if (auto status = cache_status(cache)) out.emplace_back(kCacheStatusHeader, *status);
    return out;
  }

  bool keep_for_tokens_ = false;
  std::string kept_;

 private:
  Route& route_;
  const Outgoing& out_;
  serve::Reply reply_;
  BodyRewriter body_;
  bool started_ = false, json_ = false, streaming_ = false;
  int status_ = 0;
  std::vector<serve::Field> head_;
  std::string held_;
};

// The refusal for an exchange the forge never answered.
Refusal refusal_of(const Response& res) {
  RefusalContext context;
  context.now = system_clock().now();
  return refusal_for(res.error.code, context);
}

// The mint an App-token ask claimed ends with its request, however that ends.
class MintClaim {
 public:
  MintClaim(Route& route, const AppTokenAsk& ask) : route_(route), ask_(ask) {}
  ~MintClaim() {
    if (ask_.claimed) route_.held.settle(*ask_.key);
  }
  MintClaim(const MintClaim&) = delete;
  MintClaim& operator=(const MintClaim&) = delete;

 private:
  Route& route_;
  const AppTokenAsk& ask_;
};

}  // namespace

void forward(Route& route, Outgoing out, serve::Reply reply) {
  if (share_or_claim(route, out.app_token, out.lane, out.spender, *out.rewriter, reply)) return;
  const MintClaim claim(route, out.app_token);
  // An elected lane's request goes under the term read here, or none: the
  // Transport's gate sends it only while that very term is led.
  std::optional<FencePass> pass;
  if (route.fence != nullptr && out.request.lane) pass = route.fence->enter(*out.request.lane);
  if (pass) {
    out.request.stop = pass->stop;
    if (!route.term_header.empty() && pass->term != 0)
      out.request.headers.emplace_back(route.term_header, std::to_string(pass->term));
  }
  AnswerStream stream(route, out, reply);
  stream.keep_for_tokens_ = (out.request.method == "POST" && access_tokens_installation(out.path)) ||
                            (out.request.method == "DELETE" && out.path == "/installation/token");
  const SteadyTime sent = system_clock().steady_now();
  std::optional<SteadyTime> first;
  out.request.on_body = [&](const BodyChunk& c) {
    if (!first) first = system_clock().steady_now();
    return stream.piece(c);
  };
  Response res = route.transport.perform(out.request);
  route.figures.upstream_latency(
      std::chrono::duration_cast<std::chrono::microseconds>(first.value_or(system_clock().steady_now()) - sent));
  reply.log_field("lane", out.lane);
  reply.log_field("spender", out.spender);
  reply.log_field("waited_ms", std::to_string(res.waited.count()));
  if (auto id = res.header("X-GitHub-Request-Id")) reply.log_field("upstream_request_id", std::string(*id));
  if (res.status == kNoAnswer && !stream.started()) {
    const bool not_led = pass && res.error.code == TransportErrc::lane_refused;
    const Refusal r = not_led ? route.fence->refused(*out.request.lane) : refusal_of(res);
    route.figures.answered(out.lane, "refused:" + std::string(to_string(res.error.code)));
    reply.log_field("cache", "refused");
    return void(reply.answer(r.status, r.headers, r.body));
  }
  const CacheOutcome cache = res.cache;
  route.figures.answered(out.lane, std::string(to_string(cache)));
  reply.log_field("cache", std::string(to_string(cache)));
  if (stream.keep_for_tokens_) {
    std::string_view body = stream.started() ? std::string_view(stream.kept_) : std::string_view(res.body);
    std::optional<std::string_view> token;
    for (const Header& h : out.request.headers)
      if (iequals(h.first, "Authorization")) token = core_detail::authorization_token(h.second);
    route.tokens.observe(out.request.method, out.path, res.status, body, token);
    after_forge(route, out.app_token, out.request.method, out.path, res, body, token);
  }
  if (!stream.started())  // no piece came: an answer without a body (204, 304, HEAD's)
    return void(reply.answer(res.status, stream.head(res.headers, cache), res.body));
  stream.finish(res);
}

}  // namespace forgemeter::proxy
