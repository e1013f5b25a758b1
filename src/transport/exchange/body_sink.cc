#include "transport/exchange/body_sink.h"

#include <exception>
#include <string_view>

#include "core/terminal_text.h"

namespace forgemeter::transport_detail {
namespace {

void say(std::string& why, std::string_view what, const char* detail = nullptr) noexcept {
  try {
    why = "the body sink (Request::on_body) ";
    why += what;
    if (detail != nullptr) why += core_detail::terminal_text(detail);
  } catch (...) {
    // out of memory: the code says it
  }
}

}  // namespace

bool deliver(const BodySink& sink, const BodyChunk& chunk, std::string& why) noexcept {
  try {
    if (sink(chunk)) return true;
    say(why, "refused the answer's bytes: transfer ended");
  } catch (const std::exception& e) {
    say(why, "threw: ", e.what());
  } catch (...) {
    say(why, "threw");
  }
  return false;
}

}  // namespace forgemeter::transport_detail
