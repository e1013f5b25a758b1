// observe(): watch a lease's holder (the contract is in forgemeter/observe.h).
#include "forgemeter/observe.h"

#include <algorithm>
#include <stdexcept>

namespace forgemeter {
namespace {

// What a change is made of: a renewal moves none of it.
struct Seen {
  LeaseState::Status status;
  std::string holder;
  std::uint64_t term;
  bool expired;
  bool operator==(const Seen&) const = default;
};

class Observer {
 public:
  Observer(LeaseStore& store, const ObserveSpec& spec, std::stop_token stop)
      : store_(store),
        spec_(spec),
        clock_(spec.clock ? *spec.clock : system_clock()),
        stop_(std::move(stop)),
        changes_(dynamic_cast<LeaseChanges*>(&store)) {}

  void run(const std::function<void(const LeaseState&)>& on_change) {
    std::optional<Seen> last;
    while (!stop_.stop_requested()) {
      const std::uint64_t mark = changes_ ? changes_->change_mark(spec_.name) : 0;  // before the question
      const SteadyTime asked = clock_.steady_now();
      LeaseState s = store_.inspect(spec_.name, Deadline{&clock_, asked + spec_.poll, stop_});
      if (stop_.stop_requested()) return;
      SteadyTime next = asked + spec_.poll;
      if (!s.answered()) {
        if (!last || last->status != LeaseState::Status::no_answer) on_change(s);  // once per outage
        last = Seen{s.status, {}, 0, false};  // the first answer after it differs: reported
      } else {
        const Duration left = s.expiry - clock_.now();
        const bool held = s.status == LeaseState::Status::held;
        const Seen now{s.status, s.holder, s.term, held && left <= Duration::zero()};
        if (!last || *last != now) on_change(s);
        last = now;
        if (held && !now.expired) next = std::min(next, clock_.steady_now() + left);  // report the expiry on time
      }
      if (changes_ != nullptr)
        changes_->wait_for_change(spec_.name, mark, Deadline{&clock_, next, stop_});
      else
        clock_.wait_until(next, stop_);
    }
  }

 private:
  LeaseStore& store_;
  const ObserveSpec& spec_;
  const Clock& clock_;
  std::stop_token stop_;
  LeaseChanges* const changes_;
};

}  // namespace

std::optional<std::string> check_observe_spec(const ObserveSpec& spec) {
  if (auto why = check_lease_name(spec.name)) return why;
  if (spec.poll < std::chrono::milliseconds(1)) return "observe: poll must be at least 1 ms";
  return std::nullopt;
}

void observe(LeaseStore& store, const ObserveSpec& spec, std::stop_token stop,
             const std::function<void(const LeaseState&)>& on_change) {
  if (auto why = check_observe_spec(spec)) throw std::invalid_argument(*why);
  if (!on_change) throw std::invalid_argument("observe: no on_change given");
  Observer(store, spec, std::move(stop)).run(on_change);
}

}  // namespace forgemeter
