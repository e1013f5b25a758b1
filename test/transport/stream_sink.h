// Shared by the tests of Request::on_body against cache_server.h: a body
// that shows a shifted copy, and a sink that records what it was given.
#pragma once

#include <string>

#include "cache_rig.h"

namespace fmtest {

// A deterministic body of `n` bytes (not one repeated byte: a shifted copy would show).
inline std::string pattern(std::size_t n) {
  std::string s(n, '\0');
  for (std::size_t i = 0; i < n; ++i) s[i] = static_cast<char>('a' + (i * 7 + i / 4096) % 26);
  return s;
}

// What a sink was given.
struct Taken {
  std::string bytes;
  int calls = 0;
  int status = 0;
  std::string etag;
  std::string remaining;  // the answer's X-RateLimit-Remaining (the server sends it with each)
};

// A GET of `path` whose body goes to `t`.
inline forgemeter::Request streamed(CacheRig& rig, const std::string& path, Taken& t) {
  forgemeter::Request r = rig.get_request(path);
  r.on_body = [&t](const forgemeter::BodyChunk& c) {
    t.bytes.append(c.bytes);
    ++t.calls;
    t.status = c.status;
    t.etag = std::string(c.headers->find("ETag").value_or(""));
    t.remaining = std::string(c.headers->find("X-RateLimit-Remaining").value_or(""));
    return true;
  };
  return r;
}

}  // namespace fmtest
