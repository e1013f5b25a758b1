// body_sink.h — handing a piece of the final answer to a caller's
// Request::on_body, whichever part of the Transport has it (the wire as it
// arrives, the cache when a kept body answers a revalidated request).
//
// Thread-safety: as safe as the sink. Errors: never throws (a sink's
// exception is its refusal).
#pragma once

#include <functional>
#include <string>

#include "forgemeter/exchange.h"

namespace forgemeter::transport_detail {

using BodySink = std::function<bool(const BodyChunk&)>;

// Hands `chunk` to `sink`; false when it refused or threw (then `why` says so).
bool deliver(const BodySink& sink, const BodyChunk& chunk, std::string& why) noexcept;

}  // namespace forgemeter::transport_detail
