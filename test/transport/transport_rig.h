// Shared by the transport tests: a loopback forge, a Meter whose lines are
// kept and read back through the line parser, and a Transport wired to both.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "forgemeter/lines.h"
#include "forgemeter/meter.h"
#include "forgemeter/testing/manual_clock.h"
#include "forgemeter/transport.h"
#include "testforge/forge.h"

namespace fmtest {

using namespace std::chrono;
using namespace std::string_literals;
namespace tf = forgemeter::testforge;

// A fixed instant in the middle of an hour: nothing in a test turns the hour.
inline forgemeter::UtcMillis mid_hour() {
  return forgemeter::UtcMillis{sys_days{2026y / 9 / 30} + hours{14} + minutes{30}};
}

// What the Meter wrote, summed over every line it wrote.
struct Counted {
  std::uint64_t total = 0;
  std::map<std::string, std::uint64_t> by_host;
  std::map<std::pair<std::string, std::string>, std::uint64_t> by_host_lane;
  std::map<std::tuple<std::string, forgemeter::Api, std::uint64_t>, std::uint64_t> by_key;  // host, api, installation
  std::map<std::string, std::array<std::uint64_t, forgemeter::kAnswerClasses>> answers;     // by host
  std::vector<forgemeter::BudgetEntry> budgets;
  // The lanes lines' entries summed by host and lane (installation 0 when they differ).
  std::map<std::pair<std::string, std::string>, forgemeter::LanesEntry> lanes;
  std::vector<std::string> lines;
  std::vector<std::string> malformed;

  std::uint64_t answered(const std::string& host, forgemeter::AnswerClass c) const {
    auto it = answers.find(host);
    return it == answers.end() ? 0 : it->second[static_cast<std::size_t>(c)];
  }
  // The lowest remaining over every budget entry of `installation`.
  std::optional<std::uint64_t> lowest(std::uint64_t installation) const {
    std::optional<std::uint64_t> low;
    for (const auto& b : budgets)
      if (b.installation == installation && (!low || b.remaining < *low)) low = b.remaining;
    return low;
  }
};

class Rig {
 public:
  explicit Rig(tf::ForgeOptions forge_options = {}, forgemeter::TransportOptions t = {}) : clock_(mid_hour()) {
    if (!forge_options.clock) forge_options.clock = &clock_;
    forge_ = std::make_unique<tf::Forge>(forge_options);
    meter_ = std::make_unique<forgemeter::Meter>(forgemeter::MeterOptions{.clock = &clock_, .sink = sink()});
    transport_ = make_transport(std::move(t));
  }

  // A transport on this rig's meter and forge (resolve and CA filled in).
  std::unique_ptr<forgemeter::Transport> make_transport(forgemeter::TransportOptions t) {
    if (!t.meter) t.meter = meter_.get();
    if (!t.clock) t.clock = &forgemeter::system_clock();  // retry waits in real (short) time
    if (t.resolve.empty()) t.resolve = forge_->resolve();
    if (t.ca_file.empty() && t.ca_pem.empty()) t.ca_file = forge_->ca_file();
    return std::make_unique<forgemeter::Transport>(std::move(t));
  }

  tf::Forge& forge() { return *forge_; }
  forgemeter::Transport& transport() { return *transport_; }
  forgemeter::Meter& meter() { return *meter_; }
  forgemeter::ManualClock& clock() { return clock_; }

  std::string url(std::string_view host, std::string_view path) const { return forge_->url(host, path); }
  std::string host(std::string_view name) const { return std::string(name) + ":" + std::to_string(forge_->port()); }

  // A GET of `url` signed as `installation` (0: no credential).
  static forgemeter::Request get_request(const std::string& url, std::uint64_t installation = 0) {
    forgemeter::Request r;
    r.url = url;
    if (installation) {
      r.installation = installation;
      r.bearer = "inst-" + std::to_string(installation);
    }
    return r;
  }
  forgemeter::Response get(const std::string& url, std::uint64_t installation = 0) {
    return transport_->perform(get_request(url, installation));
  }

  // `r` (or a GET of `url`) through a Transport of its own, so that no pause a
  // secondary limit set in transport() holds it back: for tests of what the
  // forge itself answers while it limits an installation.
  forgemeter::Response probe(const forgemeter::Request& r) { return make_transport({})->perform(r); }
  forgemeter::Response probe_get(const std::string& url, std::uint64_t installation = 0) {
    return probe(get_request(url, installation));
  }

  // Flushes the meter and reads back everything it wrote so far.
  Counted counted() {
    meter_->flush();
    std::vector<std::string> got;
    {
      std::lock_guard lock(mu_);
      got = lines_;
    }
    return parse(got);
  }

  static Counted parse(const std::vector<std::string>& lines) {
    Counted c;
    c.lines = lines;
    for (const auto& l : lines) {
      const forgemeter::LineScan s = forgemeter::scan_line(l);
      if (s.kind != forgemeter::LineScan::Kind::line) {
        c.malformed.push_back(l + " -> " + s.reason);
        continue;
      }
      if (auto* n = std::get_if<forgemeter::CountLine>(&s.line)) {
        c.total += n->total;
        for (const auto& e : n->entries) {
          c.by_host[e.host] += e.count;
          c.by_host_lane[{e.host, e.lane}] += e.count;
          c.by_key[{e.host, e.api, e.installation}] += e.count;
        }
      } else if (auto* b = std::get_if<forgemeter::BudgetLine>(&s.line)) {
        c.budgets.insert(c.budgets.end(), b->entries.begin(), b->entries.end());
      } else if (auto* a = std::get_if<forgemeter::AnswersLine>(&s.line)) {
        for (const auto& e : a->entries)
          for (std::size_t i = 0; i < forgemeter::kAnswerClasses; ++i) c.answers[e.host][i] += e.counts[i];
      } else if (auto* w = std::get_if<forgemeter::LanesLine>(&s.line)) {
        for (const auto& e : w->entries) {
          auto [it, fresh] = c.lanes.try_emplace({e.host, e.lane}, e);
          if (fresh) continue;
          forgemeter::LanesEntry& sum = it->second;
          if (sum.installation != e.installation) sum.installation = 0;
          sum.revalidated += e.revalidated;
          sum.coalesced += e.coalesced;
          for (std::size_t i = 0; i < forgemeter::kWaitCauses; ++i) sum.waited_ms[i] += e.waited_ms[i];
        }
      }
    }
    return c;
  }

 private:
  forgemeter::LineSink sink() {
    return [this](std::string_view l) {
      std::lock_guard lock(mu_);
      lines_.emplace_back(l);
    };
  }

  forgemeter::ManualClock clock_;
  std::mutex mu_;
  std::vector<std::string> lines_;
  std::unique_ptr<tf::Forge> forge_;
  std::unique_ptr<forgemeter::Meter> meter_;
  std::unique_ptr<forgemeter::Transport> transport_;
};

// A POST of "{}" to the forge's /echo, signed as `installation`: a write, as
// GitHub's secondary limits count them.
inline forgemeter::Request post(Rig& rig, std::uint64_t installation) {
  return {.method = "POST",
          .url = rig.url("api.forge.test", "/echo"),
          .body = "{}",
          .installation = installation,
          .bearer = "inst-" + std::to_string(installation)};
}

// The forge's received counts by host, in the meter's spelling.
inline std::map<std::string, std::uint64_t> forge_by_host(tf::Forge& f) { return f.truth().by_host(); }

}  // namespace fmtest
