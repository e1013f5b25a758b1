// The proxy's handler (forward.h): a request read, forwarded on a worker,
// answered as the forge answered or refused in its shape.
#include "cli/proxy/forward.h"

#include <charconv>
#include <memory>
#include <optional>
#include <utility>

#include "cli/proxy/answer_stream.h"
#include "core/ascii.h"
#include "proxy/header_filter.h"
#include "proxy/refusal.h"
#include "proxy/spender.h"
#include "proxy/url_rewrite.h"
#include "serve/body_reader.h"

namespace forgemeter::cli {
namespace {

// Bodies up to this are read whole first (and so may be retried); larger
// ones, or of unknown length, stream to the forge as they arrive.
constexpr std::uint64_t kBufferedUpload = std::uint64_t{1} << 20;

void refuse(serve::Reply& reply, ProxyFigures& figures, const std::string& lane, const proxy::Refusal& r) {
  std::string code = "refused";
  for (const auto& [name, value] : r.headers)
    if (core_detail::iequals(name, proxy::kRefusalHeader)) code = "refused:" + value;
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
  return proxy::public_base(r.tls ? "https" : "http", r.header("Host").value_or(""), lane_path);
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

}  // namespace

bool streams_upload(const serve::ServeRequest& request) {
  const auto length = request.header("Content-Length");
  std::uint64_t n = 0;
  if (!length || std::from_chars(length->data(), length->data() + length->size(), n).ec != std::errc()) return true;
  return n > kBufferedUpload;
}

serve::Handler proxy_handler(Route& route) {
  return [&route](const serve::ServeRequest& r, serve::Reply reply) {
    proxy::Inbound in = proxy::filter_request(r.headers);
    if (in.refused) return refuse(reply, route.figures, "other", proxy::bad_request(*in.refused, "bad_header"));
    proxy::LanePick pick = route.lanes.pick(in.lane, r.path);
    if (pick.refused) return refuse(reply, route.figures, "other", proxy::bad_request(*pick.refused, "bad_lane"));
    const std::string lane = pick.lane ? std::string(pick.lane->name()) : "other";
    proxy::Spender spender = proxy::spender_of(in, route.credentials, route.tokens);
    if (spender.refused)
      return refuse(reply, route.figures, lane,
                    spender.status == 429 ? proxy::too_busy(*spender.refused, "credentials", std::chrono::seconds(60))
                                          : proxy::bad_request(*spender.refused, "bad_installation"));
    auto base = public_base_of(route, r, pick.base_path);
    if (!base)
      return refuse(reply, route.figures, lane, proxy::bad_request("the Host header is not a host", "bad_host"));

    Outgoing out;
    out.request.method = r.method;
    out.request.url = proxy::upstream_url(route.upstream, pick.path, r.query);
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
    out.rewriter = std::make_shared<proxy::UrlRewriter>(route.upstream, *base);
    auto task = [&route, out = std::move(out), reply]() mutable { forward(route, std::move(out), std::move(reply)); };
    if (!route.pool.try_run(std::move(task)))
      refuse(reply, route.figures, lane,
             proxy::too_busy("the proxy's queue is full", "queue_full", std::chrono::seconds(1)));
  };
}

}  // namespace forgemeter::cli
