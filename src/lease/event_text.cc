#include "lease/event_text.h"

#include <fmt/format.h>

#include "core/duration_text.h"
#include "core/terminal_text.h"

namespace forgemeter::lease_detail {

using core_detail::duration_text;
using core_detail::terminal_text;

std::string escape_for_line(std::string_view s) {
  std::string quoted;
  quoted.reserve(s.size());
  for (const char c : s) {
    if (c == '\\' || c == '"') quoted += '\\';
    quoted += c;
  }
  return terminal_text(quoted);
}

EventText::EventText(std::string_view name, std::string_view owner)
    : owner_(owner), prefix_(fmt::format("lease \"{}\": {}", escape_for_line(name), escape_for_line(owner))) {}

std::string EventText::holder_text(std::string_view holder) const {
  const std::string_view name = holder_name(holder);
  return escape_for_line(name == owner_ ? holder : name);
}

LeaseEvent EventText::make(LeaseEvent::Kind kind, std::uint64_t term, std::string_view rest) const {
  return {kind, term, fmt::format("{} {}", prefix_, rest)};
}

LeaseEvent EventText::elected(std::uint64_t term, Duration ttl) const {
  return make(LeaseEvent::Kind::elected, term, fmt::format("elected (term {}, TTL {})", term, duration_text(ttl)));
}

LeaseEvent EventText::renewed_late(std::uint64_t term, int unanswered) const {
  return make(LeaseEvent::Kind::renewed_late, term,
              fmt::format("renewed late (term {}, after {} unanswered renewal{})", term, unanswered,
                          unanswered == 1 ? "" : "s"));
}

LeaseEvent EventText::lost(std::uint64_t term, std::string_view holder) const {
  const std::string to = holder.empty() ? std::string() : " to " + holder_text(holder);
  return make(LeaseEvent::Kind::lost, term, fmt::format("lost the lease{} (term {} ended: renewal refused)", to, term));
}

LeaseEvent EventText::stepped_down(std::uint64_t term, Duration window) const {
  return make(LeaseEvent::Kind::stepped_down, term,
              fmt::format("stepped down (term {} ended: no renewal proven within {} of its sending)", term,
                          duration_text(window)));
}

LeaseEvent EventText::released(std::uint64_t term, bool after_unanswered_attempt) const {
  return make(LeaseEvent::Kind::released, term,
              fmt::format("released the lease {}(term {})",
                          after_unanswered_attempt ? "an unanswered attempt had taken " : "", term));
}

LeaseEvent EventText::resigned(std::uint64_t term, Duration ttl) const {
  return make(
      LeaseEvent::Kind::resigned, term,
      fmt::format("resigned (term {} ended: asked to step down; campaigns again in {})", term, duration_text(ttl)));
}

LeaseEvent EventText::clock_differs(Duration off, Duration margin) const {
  const bool ahead = off < Duration::zero();
  // Judged within half a round trip: tenths of a second say it.
  const auto tenths = std::chrono::round<std::chrono::duration<std::int64_t, std::deci>>(ahead ? -off : off);
  return make(LeaseEvent::Kind::clock_differs, 0,
              fmt::format("has a clock about {} {} the lease store server's (more than a quarter of T - W = {}: "
                          "replicas whose clocks differ by more than T - W overlap; synchronise the clocks, "
                          "docs/lease-timing.md)",
                          duration_text(std::chrono::duration_cast<std::chrono::milliseconds>(tenths)),
                          ahead ? "ahead of" : "behind", duration_text(margin)));
}

LeaseEvent EventText::unreachable(std::string_view error) const {
  return make(LeaseEvent::Kind::store_unreachable, 0,
              fmt::format("cannot reach the lease store ({})", terminal_text(error.empty() ? "no answer" : error)));
}

LeaseEvent EventText::reachable(Duration outage) const {
  return make(LeaseEvent::Kind::store_reachable, 0,
              fmt::format("reaches the lease store again (no answer for {})", duration_text(outage)));
}

LeaseEvent EventText::owner_in_use(std::string_view holder, std::uint64_t term) const {
  return make(LeaseEvent::Kind::owner_in_use, term,
              fmt::format("is refused: owner \"{}\" is already in use by another campaign ({} holds term {}); give "
                          "each candidate an owner of its own",
                          escape_for_line(owner_), holder_text(holder), term));
}

LeaseEvent EventText::term_exhausted(std::string_view error) const {
  return make(LeaseEvent::Kind::term_exhausted, 0, fmt::format("is refused: {}", terminal_text(error)));
}

}  // namespace forgemeter::lease_detail
