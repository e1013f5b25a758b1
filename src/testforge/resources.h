// resources.h — the loopback forge's REST resources (GET /repos/...) as GitHub
// serves them: a version per path that a test can change, and the validators
// of each answer, per (credential, representation).
//
// Every path is a resource at version 0 until bump() changes it. An answer
// carries:
//   ETag           a strong tag, "<32 hex>": a keyed hash (a random key per
//                  forge, HMAC-SHA-256) of the path, the version, the
//                  Authorization header (never the token itself) and the
//                  representation headers Accept and Accept-Encoding (and a
//                  list's page); so two credentials, two media types or two
//                  pages never share a tag;
//   Last-Modified  the version's instant in whole seconds: version 0's is the
//                  forge's start; each bump's is the forge clock's second, or
//                  one second after the previous version's when that is later
//                  (so a change is always visible to If-Modified-Since);
//   Vary           Accept, Authorization, Accept-Encoding.
// The body names the viewer (a keyed hash of the credential) and the media
// type (of an Accept other than */*), so two credentials reading one URL get
// different bodies (body_of()).
//
// Conditional GETs (not_modified()): If-None-Match, when present, decides
// (weak comparison, a list, or `*`); else If-Modified-Since (IMF-fixdate; an
// unreadable date is ignored). Nothing else is conditional.
//
// Thread-safety: every method may be called from any thread at once.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include "forgemeter/clock.h"

namespace forgemeter::testforge {

// The headers an answer depends on.
struct Asked {
  std::string_view path;
  std::string_view authorization;    // "" = none
  std::string_view accept;           // "" = none
  std::string_view accept_encoding;  // "" = none
  std::string_view variant = {};     // which part of it ("page=2&per_page=30" of a list), hashed into the ETag
};

// What the forge answers for one resource, one credential and one representation.
struct Representation {
  std::uint64_t version = 0;
  std::string etag;                // "\"<32 hex>\""
  std::int64_t last_modified = 0;  // epoch seconds
  std::string viewer;              // "" without a credential, else 16 hex
  std::string media;               // "" for no Accept or */*, else 16 hex
};

inline constexpr std::string_view kVary = "Accept, Authorization, Accept-Encoding";

class Resources {
 public:
  // `pulls`: how many pulls each repository's list holds (github_shapes.h).
  explicit Resources(UtcMillis start, std::size_t pulls = 75);
  std::size_t pulls() const noexcept { return pulls_; }

  // A new version of `path` (the next GET of it is 200 with a new body and
  // ETag); returns that version (1 after the first bump).
  std::uint64_t bump(std::string_view path, UtcMillis now);
  std::uint64_t version(std::string_view path) const;

  Representation represent(const Asked& asked) const;

 private:
  struct Version {
    std::uint64_t n = 0;
    std::int64_t modified = 0;  // epoch seconds
  };
  Version current(std::string_view path) const;
  std::string keyed_hex(std::string_view what, std::size_t hex_digits) const;

  std::array<unsigned char, 32> key_{};
  std::int64_t start_ = 0;
  std::size_t pulls_ = 75;
  mutable std::mutex mu_;
  std::map<std::string, Version, std::less<>> changed_;  // paths bumped at least once
};

// {"path":P,"state":"open"}, with ,"version":N once changed, ,"viewer":"…"
// with a credential and ,"media":"…" for an Accept other than */*.
std::string body_of(std::string_view path, const Representation& r);

// Whether a GET carrying these headers (nullopt = absent) is answered 304.
bool not_modified(const Representation& r, std::optional<std::string_view> if_none_match,
                  std::optional<std::string_view> if_modified_since);

// RFC 9110's IMF-fixdate: "Sun, 06 Nov 1994 08:49:37 GMT" <-> epoch seconds.
std::string http_date(std::int64_t epoch_seconds);
std::optional<std::int64_t> parse_http_date(std::string_view text);

}  // namespace forgemeter::testforge
