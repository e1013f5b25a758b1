// coalescing.h — identical requests in flight at once share one answer.
//
// The first request under a key leads: it goes to the wire, the others that
// join while it is in flight follow and wait for it. The leader lands its
// flight with its Response, which each follower gets a copy of; or without
// one (it failed, timed out, was stopped, or threw), which releases the
// followers at once, each then to send its own. A follower's wait ends early
// when its own stop is requested (promptly: the wait is on the stop token)
// or its deadline passes (read on its clock every `poll`).
//
// Thread-safety: every method may be called from any thread at once.
// Errors: throws std::bad_alloc only.
#pragma once

#include <chrono>
#include <condition_variable>
#include <memory>
#include <optional>
#include <stop_token>
#include <string>
#include <unordered_map>

#include "core/mutex.h"
#include "forgemeter/clock.h"
#include "forgemeter/exchange.h"

namespace forgemeter::transport_detail {

class Flights {
 public:
  class Flight;
  // A place in a flight: its leader's or a follower's. A leader's Ticket
  // that is destroyed without land() lands the flight without an answer.
  class Ticket {
   public:
    Ticket(Flights* of, std::string key, std::shared_ptr<Flight> f, bool leads)
        : of_(of), key_(std::move(key)), flight_(std::move(f)), leads_(leads) {}
    Ticket(Ticket&&) = default;
    Ticket& operator=(Ticket&&) = delete;
    ~Ticket();
    bool leads() const noexcept { return leads_; }
    // The leader's answer for the followers; nullptr: none (they send their own).
    void land(const Response* answer);

   private:
    friend class Flights;
    Flights* of_;
    std::string key_;
    std::shared_ptr<Flight> flight_;
    bool leads_;
  };

  enum class Waited { answered, released, stopped, timed_out };

  // Leads the flight of `key` when none is in the air, else follows it.
  Ticket join(const std::string& key);
  // A follower's wait for its leader: `answered` (the copy is in `out`),
  // `released` (no answer: send your own), or the follower's own end. The
  // answer is shared by every follower: each copies it.
  Waited wait(const Ticket& t, const std::stop_token& stop, SteadyTime deadline, const Clock& clock,
              std::chrono::milliseconds poll, std::shared_ptr<const Response>& out);
  // Followers waiting now.
  std::size_t following() const;

 private:
  void land(Ticket& t, const Response* answer);

  mutable core_detail::Mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<Flight>> flying_ GUARDED_BY(mu_);
  std::size_t following_ GUARDED_BY(mu_) = 0;
};

}  // namespace forgemeter::transport_detail
