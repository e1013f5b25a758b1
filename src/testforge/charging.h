// charging.h — which forge a request speaks to and which bucket it spends.
//
// The loopback forge serves three kinds of forge on one port, told apart by
// the Host header, because that is how the meter tells them apart too:
//   gitlab.forge.test  GitLab: one per-minute bucket per user (`gitlab`),
//                      RateLimit-* headers without the X- prefix;
//   gitea.forge.test   Gitea: no budget and no rate-limit headers at all;
//   any other name     GitHub: core / search / code_search / graphql buckets,
//                      X-RateLimit-* headers, secondary limits.
//
// Internal to the forge (accounting.cc and its tests); httplib-free so the
// rules read as plain functions.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace forgemeter::testforge {

enum class ForgeKind { github, gitlab, gitea };

// By host name, any case, with or without `:port`.
ForgeKind forge_kind_of(std::string_view host_header);

// The host name alone: "api.forge.test:8080" -> "api.forge.test" (IPv6
// literals in brackets are left whole).
std::string_view host_name(std::string_view host_header);

// The bucket a request to `kind` for `path` spends; "" for Gitea (none).
std::string resource_of(ForgeKind kind, std::string_view path);

// What a request spends: 0 for a conditional GET answered 304 (GitHub only),
// the kCostHeader value (forge.h) for graphql (a positive integer; absent, zero or
// unreadable = 1), else 1.
std::uint64_t cost_of(ForgeKind kind, std::string_view resource, std::string_view cost_header, bool conditional_hit);

}  // namespace forgemeter::testforge
