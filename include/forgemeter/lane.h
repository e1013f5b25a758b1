// forgemeter/lane.h — lanes: the caller-chosen name every request is counted under.
//
// A lane names the loop (the "net") a request belongs to, e.g.
// `merge-gate-sweeper`; requests with no lane are counted as `other`. Tag per
// request (Transport's Request::lane) or per scope:
//
//     forgemeter::LaneScope scope{forgemeter::Lane{"merge-gate-sweeper"}};
//     sweep_once();  // every request this thread sends until `scope` ends is in that lane
//
// Scopes are per thread and nest; the innermost wins. A scope must end on the
// thread that began it, in reverse order (it is an RAII object: let it).
// Lane is a small value (one pointer to an interned name): cheap to copy and
// compare, valid for the life of the process. Constructing one from a string
// takes a process-wide lock; do it once per loop, not per request.
//
// Thread-safety: Lane is immutable; LaneScope affects only its own thread.
// Errors: the throwing constructor throws std::invalid_argument saying which
// rule (at Lane below) the name broke; Lane::parse() is the non-throwing form
// and Lane::check() says why a name is refused (nullopt: it is not).
#pragma once

#include "forgemeter/export.h"

#include <compare>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

namespace forgemeter {

// The rules of a name (checked where a name is given, never silently rewritten):
//   * 1 to 63 bytes of [a-z0-9._-], starting with a letter or a digit;
//   * `other` is reserved for untagged requests: no caller may tag with it.
class FORGEMETER_API Lane {
 public:
  // Throws std::invalid_argument when `name` breaks a rule above.
  explicit Lane(std::string_view name);

  // The lane of untagged requests.
  static Lane other() noexcept;

  // Non-throwing: the lane, or nullopt when check(name) refuses it.
  static std::optional<Lane> parse(std::string_view name);

  // Why `name` is not a valid lane to tag with, or nullopt when it is.
  static std::optional<std::string> check(std::string_view name);

  std::string_view name() const noexcept;
  bool is_other() const noexcept;

  friend bool operator==(Lane a, Lane b) noexcept { return a.p_ == b.p_; }
  // Report order: `other` first, then byte order of the names.
  friend std::strong_ordering operator<=>(Lane a, Lane b) noexcept;

 private:
  friend class LaneScope;
  friend Lane current_lane() noexcept;
  struct Interned;
  explicit Lane(const Interned* p) noexcept : p_(p) {}
  const Interned* p_;  // nullptr = other
};

// The innermost LaneScope's lane on this thread, or Lane::other().
FORGEMETER_API Lane current_lane() noexcept;

// Tags everything the current thread sends with `lane` until destroyed.
class FORGEMETER_API LaneScope {
 public:
  explicit LaneScope(Lane lane) noexcept;
  ~LaneScope();
  LaneScope(const LaneScope&) = delete;
  LaneScope& operator=(const LaneScope&) = delete;

 private:
  Lane saved_;
};

}  // namespace forgemeter
