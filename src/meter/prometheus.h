// Cumulative counters since a Meter started, as a MeterMetrics snapshot, and
// that snapshot's Prometheus text exposition (format 0.0.4). Hosts are those of the hourly lines (display
// form, folded per hour); across hours the first `max_hosts` distinct hosts
// keep their names and later ones are counted under `(other hosts)`, so the
// number of series stays bounded however many hosts a forge redirects to.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <tuple>

#include "forgemeter/meter_metrics.h"
#include "meter/tally.h"

namespace forgemeter::meter {

class Cumulative {
 public:
  // Installations past the first `max_installations` distinct ones (0, none,
  // aside) are counted as kOtherInstallation, written installation="other".
  static constexpr std::uint64_t kOtherInstallation = ~std::uint64_t{0};
  // `durations`: whether forgemeter_request_duration_seconds is a family.
  explicit Cumulative(std::size_t max_hosts, std::size_t max_installations = 1000, bool durations = true)
      : max_hosts_(max_hosts), max_installations_(max_installations), durations_on_(durations) {}

  void add(const HourLines& hour);
  // The exhaustion gauge is projected as seen at `now`.
  MeterMetrics metrics(UtcMillis now) const;

 private:
  const std::string& name_for(const std::string& host);
  // metrics()' families, one (or two) each, in its order.
  void add_requests(MeterMetrics& m) const;
  void add_answers(MeterMetrics& m) const;
  void add_saved(MeterMetrics& m) const;
  void add_waits(MeterMetrics& m) const;
  void add_durations(MeterMetrics& m) const;
  void add_remaining(MeterMetrics& m) const;
  void add_limits(MeterMetrics& m, UtcMillis now) const;
  std::uint64_t installation_for(std::uint64_t installation);

  struct Gauge {
    Reading last;  // the latest reading
    std::uint64_t lowest = 0;
  };
  std::size_t max_hosts_;
  std::size_t max_installations_;
  bool durations_on_;
  std::set<std::string> named_;
  std::set<std::uint64_t> installations_;  // named ones
  std::map<std::tuple<std::string, Api, std::uint64_t, std::string>, std::uint64_t> requests_;
  std::map<std::tuple<std::string, Api, std::string>, std::array<std::uint64_t, kAnswerClasses>> answers_;  // by lane
  std::map<std::tuple<std::string, Api, std::uint64_t, std::string>, Gauge> gauges_;  // by resource's name
  struct LaneSums {
    std::uint64_t revalidated = 0, coalesced = 0;
    std::array<std::uint64_t, kWaitCauses> waited_ms{};
  };
  std::map<std::tuple<std::string, Api, std::string>, LaneSums> lanes_;  // installations summed
  std::map<std::pair<std::string, Api>, ClassDurations> durations_;      // lanes summed
};

// The text exposition of a snapshot: # HELP and # TYPE per family, label
// values escaped as the format asks (\\ \" \n).
std::string exposition(const MeterMetrics& metrics);

}  // namespace forgemeter::meter
