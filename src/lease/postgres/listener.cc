#include "lease/postgres/listener.h"

#include <algorithm>
#include <vector>

namespace forgemeter::pg {
namespace {

using namespace std::chrono_literals;

constexpr Duration kFirstBackoff = 50ms, kMaxBackoff = 2s;
constexpr Duration kMaxRefusedBackoff = 30s;  // a server that refuses LISTEN will go on refusing
constexpr Duration kWaitSlice = 10s;          // one wait for notifications; a stop ends it at once

std::string quoted(std::string_view identifier) {
  std::string q = "\"";
  for (char c : identifier) {
    if (c == '"') q += '"';
    q += c;
  }
  return q + '"';
}

}  // namespace

std::string channel_of(std::string_view table) {
  constexpr std::size_t kMax = 63;
  return std::string(table.size() <= kMax ? table : table.substr(table.size() - kMax));
}

Listener::Listener(ConnectSettings settings, const std::string& channel, lease_detail::ChangeBoard& board)
    : settings_(std::move(settings)), listen_sql_("LISTEN " + quoted(channel)), board_(board) {}

Listener::~Listener() {
  if (thread_.joinable()) {
    thread_.request_stop();
    thread_.join();
  }
}

void Listener::start() {
  if (started_.exchange(true)) return;
  try {
    thread_ = std::jthread([this](const std::stop_token& stop) { run(stop); });
  } catch (const std::system_error&) {  // no thread: candidates poll, as without a listener
  }
}

bool Listener::listening() const { return listening_.load(std::memory_order_acquire); }

void Listener::run(const std::stop_token& stop) {
  Duration backoff = kFirstBackoff;
  while (!stop.stop_requested()) {
    lease_detail::CallBound bound(Deadline::after(system_clock(), settings_.connect_timeout, stop));
    std::string error;
    auto c = Connection::open(settings_, bound, error);
    bool refused = false;  // the server answered LISTEN with an error (a hot standby)
    if (c) {
      const Outcome listened = c->exec_simple(listen_sql_.c_str(), bound);
      if (listened.ok()) {
        backoff = kFirstBackoff;
        listen_on(*c, stop);
        continue;
      }
      refused = listened.kind == Outcome::Kind::server_error;
    }
    system_clock().wait_until(system_clock().steady_now() + backoff, stop);
    backoff = std::min(backoff * 2, refused ? kMaxRefusedBackoff : kMaxBackoff);
  }
}

// Until the session is lost or the store stops.
void Listener::listen_on(Connection& c, const std::stop_token& stop) {
  board_.changed_all();  // a change before the LISTEN took effect was not heard
  listening_.store(true, std::memory_order_release);
  std::vector<std::string> names;
  while (!stop.stop_requested()) {
    lease_detail::CallBound slice(Deadline::after(system_clock(), kWaitSlice, stop));
    names.clear();
    const bool alive = c.await_notifications(slice, names);
    for (const auto& n : names) board_.changed(n);
    if (!alive) break;
  }
  listening_.store(false, std::memory_order_release);
  board_.changed_all();
}

}  // namespace forgemeter::pg
