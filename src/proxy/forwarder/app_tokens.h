// app_tokens.h — the App-token equalizer's steps in the forwarder
// (docs/proxy.md, "GitHub Apps"). A `POST /app/installations/{id}/access_tokens`
// whose `Authorization: Bearer` JWT verifies against the given Apps (RS256,
// `iss` one of them, in its time window: appauth/app_jwt.h) and whose body
// has a canonical scope (app_scope.h) is answered from the held-token book
// while its token has more than the margin left; otherwise it is forwarded
// untouched, and the forge's 201 to such a request is held for the next.
// Every other request, and every request when no App is given, only passes.
// Thread-safety: as the route's members: any thread at once.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "forgemeter/exchange.h"
#include "proxy/forwarder/route.h"
#include "proxy/held_tokens.h"
#include "proxy/url_rewrite.h"
#include "serve/exchange.h"

namespace forgemeter::proxy {

struct AppTokenAsk {
  bool asks = false;           // a POST to access_tokens, verified or not
  std::optional<HeldKey> key;  // its JWT verified and its body has a scope
  bool claimed = false;        // it mints for `key`: settle() once the forge answered
};

// What the equalizer makes of a request (`path`: the forge's; `body`:
// nullopt when it streams, so is never read here).
AppTokenAsk app_token_ask(const Route& route, std::string_view method, std::string_view path,
                          const std::vector<serve::Field>& headers, std::optional<std::string_view> body);

// Answers with the forge's answer held under `key`, when one is (201, its
// Content-Type, its body with URLs on the client's base, Cache-Status saying
// so); whether it did. The token is learned again for the spender.
bool answer_held(Route& route, const HeldKey& key, const std::string& lane, const std::string& spender,
                 const UrlRewriter& rewriter, serve::Reply& reply);

// On the worker, before a verified ask is sent: answered from the book when
// an answer is held now or once the mint in flight for the same key ended
// (true). Otherwise the ask claims the mint, or is forwarded unclaimed when
// the one in flight outlasted `patience`.
bool share_or_claim(Route& route, AppTokenAsk& ask, const std::string& lane, const std::string& spender,
                    const UrlRewriter& rewriter, serve::Reply& reply);

// After the forge answered: a verified ask's 201 held (`hold`: the ask's
// key), the held token forgotten on DELETE /installation/token's 204 (`token`:
// the request's), the outcome counted.
void after_forge(Route& route, const AppTokenAsk& ask, std::string_view method, std::string_view path,
                 const Response& res, std::string_view body, std::optional<std::string_view> token);

}  // namespace forgemeter::proxy
