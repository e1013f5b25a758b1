#include "transport/admission/pacer.h"

#include <algorithm>
#include <cmath>

namespace forgemeter::transport_detail {

namespace {

double seconds(Duration d) { return std::chrono::duration<double>(d).count(); }

Duration of_seconds(double s) {
  return std::chrono::duration_cast<Duration>(std::chrono::duration<double>(std::ceil(s * 1e9) / 1e9));
}

// Absorbs the rounding of tokens accrued over a computed wait.
constexpr double kTokenSlack = 1e-9;

}  // namespace

std::optional<std::string> check(const PacingTuning& t) {
  if (t.steps_per_window == 0) return "steps_per_window must be at least 1";
  if (!(t.growth >= 0 && t.growth <= 1)) return "growth must be in [0, 1]";
  if (t.probe_interval <= Duration::zero()) return "probe_interval must be above 0";
  if (!(t.burst >= 1 && t.burst <= 1e6)) return "burst must be in [1, 1e6]";
  if (t.max_retry <= Duration::zero()) return "max_retry must be above 0";
  return std::nullopt;
}

BudgetWindow::Offered BudgetWindow::offer(const meter::Reading& r) {
  if (!r.reset || UtcMillis(*r.reset) <= r.seen) return Offered::unusable;
  const UtcMillis at_reset(*r.reset);
  length = std::max<Duration>(length, at_reset - r.seen);
  if (known && at_reset < reset) return Offered::stale;  // an answer from a window already over
  if (!known || at_reset > reset) {
    known = true;
    reset = at_reset;
    remaining = r.remaining;
    limit = r.limit.value_or(0);
    seen = r.seen;
    return Offered::new_window;
  }
  if (r.remaining < remaining) {
    remaining = r.remaining;
    seen = r.seen;
  }
  if (r.limit) limit = *r.limit;
  return Offered::same_window;
}

double Pacer::kept(const BudgetWindow& w) const {
  return std::max(static_cast<double>(keep_), std::ceil(keep_fraction_ * static_cast<double>(w.limit)));
}

Duration Pacer::step_length(const BudgetWindow& w) const {
  return std::max<Duration>(w.length / tuning_.steps_per_window, std::chrono::milliseconds(1));
}

double Pacer::allowed_rate(const BudgetWindow& w, UtcMillis now) const {
  if (!w.known || now >= w.reset) return 0;
  // The reading is as old as this lane's last answer: since then the fleet
  // spent about what the budget allowed, for at most the time it takes the
  // others to spend 1/share (one request of this lane's): bounded, so a lane
  // that waits never talks itself out of its next reading.
  const double at_reading = std::max(0.0, static_cast<double>(w.remaining) - kept(w));
  const double allowed_then = at_reading / seconds(w.reset - w.seen);
  const double since = now > w.seen ? seconds(now - w.seen) : 0;
  const double spendable = at_reading - std::min(since * allowed_then, 1 / std::max(share_, 1e-6));
  if (spendable <= 0) return 0;
  return share_ * spendable / seconds(w.reset - now) * behind_line(w, spendable, now);
}

// Below the window's straight line (the fleet spent ahead of it: start-up
// probes, a burst) the lane slows by how far: the fleet then comes back to
// the line as y' = y(1 − y)/(T − t) for y its part of the line, and still
// spends to the keep by the reset. Above the line (spent behind it) 1.
double Pacer::behind_line(const BudgetWindow& w, double spendable, UtcMillis now) const {
  if (w.limit == 0 || w.length <= Duration::zero()) return 1;
  const double line = (static_cast<double>(w.limit) - kept(w)) * seconds(w.reset - now) / seconds(w.length);
  return line > spendable ? spendable / line : 1;
}

void Pacer::grant() {
  ++own_;
  waiting_ = false;
}

// No usable reading: one request per probe interval tells this lane the
// window (the first at once, also right after a reset).
PaceVerdict Pacer::probe(SteadyTime steady) {
  if (last_probe_ && steady - *last_probe_ < tuning_.probe_interval)
    return {false, *last_probe_ + tuning_.probe_interval, *last_probe_ + tuning_.probe_interval};
  last_probe_ = steady;
  grant();
  tokens_ = 0;
  tokens_at_ = steady;
  return {};
}

PaceVerdict Pacer::admit(const BudgetWindow& w, UtcMillis wall, SteadyTime steady) {
  if (!w.known || wall >= w.reset) return probe(steady);
  const double rate = allowed_rate(w, wall);
  if (tokens_at_ && steady > *tokens_at_)
    tokens_ = std::min(tuning_.burst, tokens_ + rate * seconds(steady - *tokens_at_));
  tokens_at_ = steady;
  if (rate > 0 && tokens_ >= 1 - kTokenSlack) {  // at the keep, a saved token waits too
    tokens_ = std::max(0.0, tokens_ - 1);
    grant();
    return {};
  }
  waiting_ = true;
  // Ask again when a token is due, at the reset at the latest (then a probe
  // goes), and at least every max_retry and every step (the rate may change).
  // The token's time is reckoned in seconds first: a rate near 0 puts it
  // past what a Duration holds, and then the reset's probe comes first.
  const double to_reset = seconds(w.reset - wall);
  const double to_token = rate > 0 ? (1 - tokens_) / rate : to_reset;
  const Duration due = to_token < to_reset ? of_seconds(to_token) : w.reset - wall;
  const Duration wait =
      std::max<Duration>(std::min<Duration>({due, tuning_.max_retry, step_length(w)}), std::chrono::microseconds(1));
  return {false, steady + wait, steady + std::max(due, wait)};
}

void Pacer::anchor(const BudgetWindow& w, UtcMillis at) {
  anchored_ = true;
  anchor_at_ = at;
  anchor_remaining_ = w.remaining;
  anchor_own_ = own_;
}

void Pacer::observe(const BudgetWindow& w, BudgetWindow::Offered o, UtcMillis at) {
  using O = BudgetWindow::Offered;
  if (o == O::unusable || o == O::stale) return;
  if (!measured_ && w.limit > w.remaining) {
    // Until its first step is measured, the lane takes what it sent of what
    // the window spent so far as its share: a fleet that starts at once
    // starts near its shares, and a lone replica is held below the budget's
    // pace for at most its first step.
    share_ = std::min(1.0, static_cast<double>(own_) / static_cast<double>(w.limit - w.remaining));
    measured_ = true;
  }
  if (o == O::new_window || !anchored_ || at < anchor_at_) return anchor(w, at);
  // At the keep the budget allows the lane nothing: what others (unpaced
  // lanes) spend then says nothing of its share, which the next window needs.
  if (static_cast<double>(w.remaining) <= kept(w)) return anchor(w, at);
  // Others' answers (unpaced lanes of this replica) bring readings between
  // this lane's requests: a step in which it sent nothing because it was
  // waiting for its pace is not over (its share would read 0); an idle
  // lane's is (it wins a share back by growth).
  if (own_ == anchor_own_ && waiting_) return;
  // The step closes after its time, or once the fleet spent what the budget
  // allows for a whole step (an overspending fleet is corrected at once).
  const Duration step = step_length(w);
  const Duration elapsed = at - anchor_at_;
  const double spent = static_cast<double>(anchor_remaining_ - std::min(anchor_remaining_, w.remaining));
  const double remaining_time = seconds(w.reset - at);
  const double due = remaining_time > 0
                         ? std::max(0.0, static_cast<double>(w.remaining) - kept(w)) * seconds(step) / remaining_time
                         : 0;
  if (elapsed < step && (spent < 1 || spent < due)) return;
  const double grown = tuning_.growth * std::min(1.0, seconds(elapsed) / seconds(step));
  if (spent >= 1) share_ = static_cast<double>(own_ - anchor_own_) / spent;
  share_ = std::min(1.0, share_ + grown);
  anchor(w, at);
}

}  // namespace forgemeter::transport_detail
