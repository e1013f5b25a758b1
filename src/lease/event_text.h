// The stable texts of LeaseEvent (forgemeter/campaign.h). Name, owner and
// store errors are escaped (terminal_text) so no control byte or line break
// reaches a log line. Internal to the lease room.
#pragma once

#include <string>
#include <string_view>

#include "forgemeter/campaign.h"

namespace forgemeter::lease_detail {

// A name as it stands in quotes: `\` -> `\\`, `"` -> `\"`, then terminal_text()
// (core/terminal_text.h: C0/C1 controls, DEL, U+2028/U+2029 as \xNN).
std::string escape_for_line(std::string_view s);

class EventText {
 public:
  // `owner` is spec.owner, the name (never the tagged owner the store holds).
  EventText(std::string_view name, std::string_view owner);
  // How a holder the store reported is shown: its name, with its tag only when
  // the name is this campaign's own (there the tag is what tells them apart).
  std::string holder_text(std::string_view holder) const;

  LeaseEvent elected(std::uint64_t term, Duration ttl) const;
  LeaseEvent renewed_late(std::uint64_t term, int unanswered) const;
  LeaseEvent lost(std::uint64_t term, std::string_view holder) const;
  LeaseEvent stepped_down(std::uint64_t term, Duration window) const;
  LeaseEvent released(std::uint64_t term, bool after_unanswered_attempt) const;
  LeaseEvent resigned(std::uint64_t term, Duration ttl) const;
  // `off`: the store server's clock minus ours; `margin`: T − W.
  LeaseEvent clock_differs(Duration off, Duration margin) const;
  LeaseEvent unreachable(std::string_view error) const;
  LeaseEvent reachable(Duration outage) const;
  LeaseEvent owner_in_use(std::string_view holder, std::uint64_t term) const;
  LeaseEvent term_exhausted(std::string_view error) const;

 private:
  LeaseEvent make(LeaseEvent::Kind kind, std::uint64_t term, std::string_view rest) const;
  std::string owner_;   // spec.owner: a holder of that name is shown with its tag
  std::string prefix_;  // lease "<name>": <owner>
};

}  // namespace forgemeter::lease_detail
