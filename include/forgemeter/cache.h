// forgemeter/cache.h — a Transport's conditional cache: its settings
// (TransportOptions::cache) and what it holds (Transport::cache_figures()).
//
//   forgemeter::Transport transport({.meter = &meter, .cache = {.max_bytes = 64 << 20}});
//
// Off while max_bytes is 0. A GET's 200 with an ETag or Last-Modified is
// kept; the same GET (method, URL, installation, credential, the headers its
// Vary names) is then sent with If-None-Match / If-Modified-Since and a 304
// returns the kept answer (Response::revalidated). Nothing is served without
// asking the forge. A request that carries its own conditional, Range or
// Cache-Control header, or is not a GET without a body, or is GraphQL,
// bypasses it. Identical such GETs in flight at once put one request on the
// wire (the others' Response::coalesced). Response::cache says what the
// cache did with each (a CacheOutcome). Why and how: docs/cache.md.
//
// Plain values. Errors: the Transport's constructor throws
// std::invalid_argument naming the field (cache.poll <= 0), and
// std::runtime_error when no random key for the cache can be had.
#pragma once

#include "forgemeter/export.h"

#include <chrono>
#include <cstddef>

namespace forgemeter {

struct FORGEMETER_API CacheOptions {
  std::size_t max_bytes = 0;               // every entry's body, headers and key; 0: no cache
  std::size_t max_entries = 10'000;        // least recently used go first
  std::size_t max_entry_bytes = 1u << 20;  // an answer larger than this is not kept
  std::chrono::milliseconds poll{10};      // a waiting follower reads its clock this often
};

// What a Transport's cache holds now (all zero without one).
struct FORGEMETER_API CacheFigures {
  std::size_t entries = 0;
  std::size_t bytes = 0;      // as CacheOptions::max_bytes counts them
  std::size_t following = 0;  // requests waiting now for an identical one in flight
};

}  // namespace forgemeter
