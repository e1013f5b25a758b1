// The equalizer's steps (app_tokens.h).
#include "proxy/forwarder/app_tokens.h"

#include <variant>

#include "appauth/app_jwt.h"
#include "core/ascii.h"
#include "proxy/app_scope.h"
#include "proxy/cache_status.h"
#include "proxy/installation_tokens.h"

namespace forgemeter::proxy {

AppTokenAsk app_token_ask(const Route& route, std::string_view method, std::string_view path,
                          const std::vector<serve::Field>& headers, std::optional<std::string_view> body) {
  AppTokenAsk ask;
  if (method != "POST") return ask;
  const auto installation = access_tokens_installation(path);
  if (!installation) return ask;
  ask.asks = true;
  if (!route.apps || route.apps->empty() || !body) return ask;
  std::optional<std::string_view> jwt;
  for (const auto& [name, value] : headers)
    if (core_detail::iequals(name, "Authorization")) {
      if (jwt) return ask;  // two credentials: the forge's pick is not ours to guess
      jwt = appauth::bearer_of(value);
      if (!jwt) return ask;
    }
  if (!jwt) return ask;
  const auto verified = appauth::verify_app_jwt(*jwt, *route.apps, route.clock.now());
  const auto* app = std::get_if<appauth::AppJwt>(&verified);
  if (app == nullptr) return ask;
  auto scope = canonical_scope(*body);
  if (!scope) return ask;
  ask.key = HeldKey{app->app_id, *installation, std::move(*scope)};
  return ask;
}

bool answer_held(Route& route, const HeldKey& key, const std::string& lane, const std::string& spender,
                 const UrlRewriter& rewriter, serve::Reply& reply) {
  auto held = route.held.find(key);
  if (!held) return false;
  route.tokens.learn(held->token, key.installation, held->expires_at);
  std::string body;
  if (rewrites_body(held->content_type)) {
    BodyRewriter rewrite(rewriter);
    rewrite.write(held->body, body);
    rewrite.finish(body);
  } else {
    body = std::move(held->body);
  }
  route.figures.answered(lane, "app_token");
  route.figures.app_token(AppTokenOutcome::shared);
  reply.log_field("lane", lane);
  reply.log_field("spender", spender);
  reply.log_field("waited_ms", "0");
  reply.log_field("cache", "app_token");
  std::vector<serve::Field> head{{"Content-Type", held->content_type},
                                 {std::string(kCacheStatusHeader), std::string(kAppTokenCacheStatus)}};
  reply.answer(201, std::move(head), std::move(body));
  return true;
}

bool share_or_claim(Route& route, AppTokenAsk& ask, const std::string& lane, const std::string& spender,
                    const UrlRewriter& rewriter, serve::Reply& reply) {
  if (!ask.key) return false;
  while (!route.held.claim(*ask.key)) {
    if (!route.held.await(*ask.key, route.patience)) return false;
    if (answer_held(route, *ask.key, lane, spender, rewriter, reply)) return true;
  }
  ask.claimed = true;
  if (!answer_held(route, *ask.key, lane, spender, rewriter, reply)) return false;
  route.held.settle(*ask.key);  // held while it waited for a worker: nothing to mint
  ask.claimed = false;
  return true;
}

void after_forge(Route& route, const AppTokenAsk& ask, std::string_view method, std::string_view path,
                 const Response& res, std::string_view body, std::optional<std::string_view> token) {
  if (method == "DELETE" && path == "/installation/token" && res.status == 204 && token) route.held.forget(*token);
  if (!ask.asks) return;
  const bool held = ask.key && res.ok() && res.status == 201 &&
                    route.held.hold(*ask.key, std::string(body), std::string(res.header("Content-Type").value_or("")));
  route.figures.app_token(held ? AppTokenOutcome::minted : AppTokenOutcome::forwarded);
}

}  // namespace forgemeter::proxy
