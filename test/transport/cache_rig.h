// Shared by the cache tests: a CacheServer, a Meter whose lines are read back
// through the line parser (transport_rig.h's Rig::parse), and a Transport with
// its cache on, wired to both.
#pragma once

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "cache_server.h"
#include "transport_rig.h"

namespace fmtest {

inline forgemeter::CacheOptions small_cache() {
  return {.max_bytes = 4u << 20, .max_entries = 1000, .max_entry_bytes = 1u << 20};
}

class CacheRig {
 public:
  explicit CacheRig(forgemeter::CacheOptions cache = small_cache(), forgemeter::TransportOptions t = {})
      : clock_(mid_hour()) {
    meter_ = std::make_unique<forgemeter::Meter>(
        forgemeter::MeterOptions{.clock = &clock_, .sink = [this](std::string_view l) {
                                   std::lock_guard lock(mu_);
                                   lines_.emplace_back(l);
                                 }});
    t.meter = meter_.get();
    t.clock = &forgemeter::system_clock();  // retry waits and follower polls in real (short) time
    t.cache = cache;
    // thousands of reads of one installation in seconds: GitHub's 900 REST
    // points a minute would hold them for minutes (tested apart)
    t.rate_limits.secondary_limits = forgemeter::SecondaryLimitOptions::off();
    transport_ = std::make_unique<forgemeter::Transport>(std::move(t));
  }

  CacheServer& server() { return server_; }
  forgemeter::Transport& transport() { return *transport_; }

  forgemeter::Request get_request(const std::string& path, const std::string& bearer = "tok-a") const {
    return {.url = server_.url(path), .installation = 101, .bearer = bearer};
  }
  forgemeter::Response get(const std::string& path, const std::string& bearer = "tok-a") {
    return transport_->perform(get_request(path, bearer));
  }
  // What the server saw last: the validator the last request carried.
  std::string last_if_none_match() const { return server_.seen().back().if_none_match; }

  Counted counted() {
    meter_->flush();
    std::vector<std::string> got;
    {
      std::lock_guard lock(mu_);
      got = lines_;
    }
    return Rig::parse(got);
  }
  std::string host() const { return "127.0.0.1:" + server_.url("").substr(server_.url("").rfind(':') + 1); }

 private:
  CacheServer server_;
  forgemeter::ManualClock clock_;
  std::mutex mu_;
  std::vector<std::string> lines_;
  std::unique_ptr<forgemeter::Meter> meter_;
  std::unique_ptr<forgemeter::Transport> transport_;
};

}  // namespace fmtest
