// lane_book.h — the lane a proxied request is counted in, for clients that
// cannot tag their own: `X-Forgemeter-Lane: NAME`, or a base URL whose path
// starts `/lanes/NAME/` (the prefix is stripped before forwarding). Both
// given must agree. A name follows the library's rule (forgemeter/lane.h).
//
// Bounded: with `named` (`--lanes a,b`) only those; without, at most
// `max_lanes` distinct names in the process's life, and past that a new one
// is refused (400, nothing sent): a client inventing a lane per request
// must not grow every table keyed by lane. A name is checked before it is
// interned, so a refused one costs nothing kept.
// Thread-safety: every method may be called from any thread at once.
// Errors: the constructor throws std::invalid_argument for an invalid named lane.
#pragma once

#include <cstddef>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "core/mutex.h"
#include "core/thread_annotations.h"
#include "forgemeter/lane.h"

namespace forgemeter::proxy {

inline constexpr std::string_view kLanePrefix = "/lanes/";

struct LaneOptions {
  std::vector<std::string> named;  // empty: any valid name, up to max_lanes
  std::size_t max_lanes = 64;
};

struct LanePick {
  std::optional<Lane> lane;            // nullopt: none named (counted as `other`)
  std::string path;                    // the path to forward: the lane prefix stripped, "/" at least
  std::string base_path;               // "/lanes/NAME" when the path named the lane, else ""
  std::optional<std::string> refused;  // why the request is refused (400)
};

class LaneBook {
 public:
  explicit LaneBook(LaneOptions options = {});

  // The lane of a request with this X-Forgemeter-Lane value and path.
  LanePick pick(std::optional<std::string_view> header, std::string_view path);

  // The distinct names admitted so far (named ones included).
  std::size_t size() const;

 private:
  std::optional<std::string> admit(std::string_view name);
  const bool fixed_;
  const std::size_t max_;
  mutable core_detail::Mutex mu_;
  std::set<std::string, std::less<>> names_ GUARDED_BY(mu_);
};

}  // namespace forgemeter::proxy
