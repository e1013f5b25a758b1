// answer.h — what the elector says about one lease, and its bytes: the JSON
// of GET /leases/NAME, an event of /leases/NAME/events (Server-Sent Events),
// and the two compatibility shapes (Kubernetes' leader-elector `GET /`,
// nais/elector's `/sse`). Names and holders are anyone's text: the JSON is
// ASCII-escaped, invalid UTF-8 replaced, never a broken document or frame.
// Thread-safety: pure functions.
#pragma once

#include <cstdint>
#include <string>

#include "forgemeter/clock.h"

namespace forgemeter::elector {

struct LeaseAnswer {
  std::string event;  // an event's kind ("elected", ...); "" in an answer to a GET
  std::string id;     // "TERM.SEQ": the last change this answer reflects
  std::string name;
  std::string holder;  // the holder's owner as it was given (no campaign tag); "" when free
  std::uint64_t term = 0;
  UtcMillis expiry{};  // the epoch when free
  bool leader = false;
  // How long the caller may act on it, counted from when it SENT its
  // request (docs/elector.md); 0 unless leader, and always 0 in an event.
  std::int64_t valid_for_ms = 0;
};

// {"name":…,"holder":…,"term":…,"expiry":…,"leader":…,"valid_for_ms":…,"id":…}
// (+ "event" first in an event); expiry RFC 3339 with milliseconds, null when free.
std::string answer_json(const LeaseAnswer& a);
// "id: TERM.SEQ\ndata: {answer_json}\n\n"
std::string event_frame(const LeaseAnswer& a);

// Kubernetes' leader-elector and nais/elector: {"name":HOLDER,"last_update":RFC 3339}.
std::string compat_json(const std::string& holder, UtcMillis last_update);
// nais/elector's /sse message: "data: {compat_json}\n\n".
std::string compat_frame(const std::string& holder, UtcMillis last_update);

// RFC 3339, UTC, milliseconds: 2026-09-30T14:37:12.345Z
std::string rfc3339(UtcMillis t);

}  // namespace forgemeter::elector
