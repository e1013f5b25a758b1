// The proxy's handler (forward.h): a request read, forwarded on a worker,
// answered as the forge answered or refused in its shape.
#include "proxy/forwarder/forward.h"

#include <memory>
#include <optional>
#include <stdexcept>
#include <utility>

#include "core/ascii.h"
#include "proxy/forwarder/answer_stream.h"
#include "proxy/forwarder/app_tokens.h"
#include "proxy/forwarder/route.h"
#include "proxy/header_filter.h"
#include "proxy/refusal.h"
#include "proxy/spender.h"
#include "proxy/url_rewrite.h"
#include "serve/body_reader.h"

namespace forgemeter::proxy {
namespace {

// Bodies up to this are read whole first (and so may be retried); larger
// ones, or of unknown length, stream to the forge as they arrive.
constexpr std::uint64_t kBufferedUpload = std::uint64_t{1} << 20;

void refuse(serve::Reply& reply, ProxyFigures& figures, const std::string& lane, const Refusal& r) {
  std::string code = "refused";
  for (const auto& [name, value] : r.headers)
    if (core_detail::iequals(name, kRefusalHeader)) code = "refused:" + value;
  figures.answered(lane, code);
  reply.log_field("lane", lane);
  reply.log_field("cache", code);
  reply.answer(r.status, r.headers, r.body);
}

// The base the client addressed: --public-url, or the listener's scheme and
// its Host; the lane prefix it used follows either.
std::optional<std::string> public_base_of(const Route& route, const serve::ServeRequest& r,
                                          const std::string& lane_path) {
  if (!route.public_url.empty()) return route.public_url + lane_path;
  return public_base(r.tls ? "https" : "http", r.header("Host").value_or(""), lane_path);
}

// The upload as the Transport reads it: from the serving room's reader.
void attach_upload(Request& out, const std::shared_ptr<serve::BodyReader>& reader) {
  out.body_length = reader->length();
  out.body_source = [reader](std::span<char> buffer) -> std::optional<std::size_t> {
    const long n = reader->read(buffer.data(), buffer.size());
    if (n < 0) return std::nullopt;  // the client went away mid-upload: the transfer ends
    return static_cast<std::size_t>(n);
  };
}

// A verified App JWT asking for an installation's token is charged to that
// installation (unless the client named one), not to a credential key
// minted per JWT; every other request as spender_of() says.
Spender spender_for(Route& route, const Inbound& in, const AppTokenAsk& ask) {
  if (!ask.key || in.installation) return spender_of(in, route.credentials, route.tokens);
  Spender s;
  s.installation = ask.key->installation;
  s.shown = std::to_string(s.installation);
  return s;
}

}  // namespace

bool streams_upload(const serve::ServeRequest& request) {
  const auto length = request.content_length();  // not digits: saturated, so streamed
  return !length || *length > kBufferedUpload;
}

Forwarder::Forwarder(ForwarderOptions options, Transport& transport, LaneFence* fence) {
  while (!options.upstream.empty() && options.upstream.back() == '/') options.upstream.pop_back();
  if (auto why =
          UrlRewriter::check(options.upstream, options.public_url.empty() ? "http://127.0.0.1" : options.public_url))
    throw std::invalid_argument(*why);
  route_ = std::make_unique<Route>(transport, options, fence);
}

Forwarder::~Forwarder() { stop(); }

void Forwarder::stop() { route_->pool.stop(); }

MeterMetrics Forwarder::families(std::size_t connections) const {
  const WorkerPool& pool = route_->pool;
  return route_->figures.families({connections, pool.busy() + pool.waiting(), pool.waiting()});
}

serve::Handler Forwarder::handler() {
  return [&route = *route_](const serve::ServeRequest& r, serve::Reply reply) {
    Inbound in = filter_request(r.headers);
    if (in.refused) return refuse(reply, route.figures, "other", bad_request(*in.refused, "bad_header"));
    LanePick pick = route.lanes.pick(in.lane, r.path);
    if (pick.refused) return refuse(reply, route.figures, "other", bad_request(*pick.refused, "bad_lane"));
    const std::string lane = pick.lane ? std::string(pick.lane->name()) : "other";
    AppTokenAsk ask = app_token_ask(route, r.method, pick.path, in.forward,
                                    r.body_reader ? std::nullopt : std::optional<std::string_view>(r.body));
    Spender spender = spender_for(route, in, ask);
    if (spender.refused)
      return refuse(reply, route.figures, lane,
                    spender.status == 429 ? too_busy(*spender.refused, "credentials", std::chrono::seconds(60))
                                          : bad_request(*spender.refused, "bad_installation"));
    auto base = public_base_of(route, r, pick.base_path);
    if (!base) return refuse(reply, route.figures, lane, bad_request("the Host header is not a host", "bad_host"));

    auto rewriter = std::make_shared<UrlRewriter>(route.upstream, *base);
    if (ask.key && answer_held(route, *ask.key, lane, spender.shown, *rewriter, reply)) return;

    Outgoing out;
    out.request.method = r.method;
    out.request.url = upstream_url(route.upstream, pick.path, r.query);
    // The Transport asks for the encodings it can decode and hands the body
    // over decoded (JSON is rewritten as it streams): the client's own
    // Accept-Encoding would have the forge send what no one decodes.
    std::erase_if(in.forward, [](const serve::Field& f) { return core_detail::iequals(f.first, "Accept-Encoding"); });
    out.request.headers = std::move(in.forward);
    out.request.lane = pick.lane.value_or(Lane::other());
    out.request.installation = spender.installation;
    out.request.follow_redirects = false;
    out.request.max_wait = route.max_wait;
    if (r.body_reader)
      attach_upload(out.request, r.body_reader);
    else
      out.request.body = r.body;
    out.lane = lane;
    out.spender = spender.shown;
    out.path = pick.path;
    out.rewriter = std::move(rewriter);
    out.app_token = std::move(ask);
    auto task = [&route, out = std::move(out), reply]() mutable { forward(route, std::move(out), std::move(reply)); };
    if (!route.pool.try_run(std::move(task)))
      refuse(reply, route.figures, lane, too_busy("the proxy's queue is full", "queue_full", std::chrono::seconds(1)));
  };
}

}  // namespace forgemeter::proxy
