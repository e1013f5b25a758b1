// LeaseView (lease_view.h): one lease's state, its promises and its watchers.
#include "elector/lease_view.h"

#include <algorithm>

namespace forgemeter::elector {
namespace {

const std::vector<serve::Field> kJson{{"Content-Type", "application/json"}, {"Cache-Control", "no-store"}};
const std::vector<serve::Field> kEvents{{"Content-Type", "text/event-stream"}, {"Cache-Control", "no-store"}};

}  // namespace

void send_answer(serve::Reply& reply, const LeaseAnswer& a) {
  reply.log_field("lease", a.name);  // the access log's record of what was promised
  reply.log_field("leader", a.leader ? "true" : "false");
  reply.log_field("valid_for_ms", std::to_string(a.valid_for_ms));
  reply.answer(200, kJson, answer_json(a));
}

LeaseView::LeaseView(LeaseViewOptions o) : o_(std::move(o)), clock_(o_.clock != nullptr ? *o_.clock : system_clock()) {}

void LeaseView::elected(const Term& term) {
  core_detail::MutexLock lock(mu_);
  term_ = term;
  stepping_down_ = false;
  holder_id_.clear();
  set_holder_locked(o_.owner);
  term_no_ = term.number();
  publish_locked("elected");
}

SteadyTime LeaseView::step_down() {
  core_detail::MutexLock lock(mu_);
  if (term_ && !stepping_down_) {
    stepping_down_ = true;  // from here on every answer says not leader
    publish_locked("stepped_down");
  }
  return promised_until_;
}

void LeaseView::left() {
  core_detail::MutexLock lock(mu_);
  if (term_) expiry_ = state_locked().expiry;  // the last one this replica proved
  term_.reset();
  stepping_down_ = false;
}

void LeaseView::released(std::uint64_t term) {
  core_detail::MutexLock lock(mu_);
  // The store may have moved on already (observed): then that is the news.
  if (holder_ != o_.owner || !holder_id_.empty() || term_no_ != term) return;
  set_holder_locked("");
  expiry_ = {};
  publish_locked("released");
}

void LeaseView::observed(const LeaseState& s) {
  core_detail::MutexLock lock(mu_);
  if (!s.answered()) {
    if (reachable_) {
      reachable_ = false;
      publish_locked("store_outage");
    }
    return;
  }
  const bool back = !reachable_;
  reachable_ = true;
  const bool ours = s.term == term_no_ && holder_ == o_.owner && holder_id_.empty();
  const char* news = nullptr;
  if (s.term < term_no_) {
    // an answer older than what this replica knows: nothing new in it
  } else if (s.status == LeaseState::Status::free) {
    if (!holder_.empty() || s.term != term_no_) news = "released";
    set_holder_locked("");
    holder_id_.clear();
    expiry_ = {};
  } else if (ours) {
    if (!term_) expiry_ = s.expiry;
  } else if (s.holder != holder_id_ || s.term != term_no_) {
    holder_id_ = s.holder;
    set_holder_locked(std::string(holder_name(s.holder)));
    expiry_ = s.expiry;
    // This replica's own new term, seen before its work began: elected() says it.
    if (holder_ != o_.owner) news = "handed_over";
  } else if (s.expiry <= clock_.now() && expiry_ != s.expiry) {
    expiry_ = s.expiry;
    news = "expired";
  }
  if (s.term > term_no_) term_no_ = s.term;
  if (news != nullptr) publish_locked(news);
  if (back) publish_locked("back");
}

void LeaseView::store_reachable(bool reachable) {
  core_detail::MutexLock lock(mu_);
  if (reachable == reachable_) return;
  reachable_ = reachable;
  publish_locked(reachable ? "back" : "store_outage");
}

LeaseAnswer LeaseView::answer(SteadyTime arrived) {
  core_detail::MutexLock lock(mu_);
  return answer_locked(arrived, clock_.steady_now());
}

std::string LeaseView::current_id() const {
  core_detail::MutexLock lock(mu_);
  return std::to_string(id_term_) + "." + std::to_string(id_seq_);
}

std::string LeaseView::compat() const {
  core_detail::MutexLock lock(mu_);
  return compat_json(holder_, holder_since_);
}

std::optional<std::uint64_t> LeaseView::leading() const {
  core_detail::MutexLock lock(mu_);
  if (term_ && !stepping_down_ && term_->valid()) return term_->number();
  return std::nullopt;
}

LeaseAnswer LeaseView::state() const {
  core_detail::MutexLock lock(mu_);
  return state_locked();
}

void LeaseView::watch(serve::Reply stream, bool compat) {
  core_detail::MutexLock lock(mu_);
  if (!stream.start_stream(200, kEvents)) return;
  LeaseAnswer now = state_locked();
  now.event = "state";
  if (!stream.write(compat ? compat_frame(holder_, holder_since_) : event_frame(now))) return;
  streams_.push_back(Stream{std::move(stream), compat});
}

void LeaseView::await_change(serve::Reply reply, SteadyTime arrived, SteadyTime until) {
  core_detail::MutexLock lock(mu_);
  polls_.push_back(Poll{std::move(reply), arrived, until});
}

SteadyTime LeaseView::tick(SteadyTime now, Duration heartbeat) {
  core_detail::MutexLock lock(mu_);
  const auto due = std::partition(polls_.begin(), polls_.end(), [&](const Poll& p) { return p.until > now; });
  for (auto p = due; p != polls_.end(); ++p) send_answer(p->reply, answer_locked(p->arrived, now));
  polls_.erase(due, polls_.end());
  if (now >= next_heartbeat_) {
    // A comment line: clients ignore it; a client gone is noticed on the write.
    std::erase_if(streams_, [](Stream& s) { return !s.reply.write(":\n\n"); });
    next_heartbeat_ = now + heartbeat;
  }
  SteadyTime next = next_heartbeat_;
  for (const Poll& p : polls_) next = std::min(next, p.until);
  return next;
}

void LeaseView::end_clients() {
  core_detail::MutexLock lock(mu_);
  for (Stream& s : streams_) s.reply.end();
  streams_.clear();
  const SteadyTime now = clock_.steady_now();
  for (Poll& p : polls_) send_answer(p.reply, answer_locked(p.arrived, now));
  polls_.clear();
}

void LeaseView::set_holder_locked(std::string holder) {
  if (holder == holder_) return;
  holder_ = std::move(holder);
  holder_since_ = clock_.now();
  // nais/elector's stream says each change of holder, and nothing else.
  const std::string frame = compat_frame(holder_, holder_since_);
  std::erase_if(streams_, [&](Stream& s) {
    if (!s.compat || s.reply.write(frame)) return false;
    s.reply.end();
    return true;
  });
}

LeaseAnswer LeaseView::state_locked() const {
  LeaseAnswer a;
  a.id = std::to_string(id_term_) + "." + std::to_string(id_seq_);
  a.name = o_.name;
  a.holder = holder_;
  a.term = term_no_;
  a.expiry = expiry_;
  if (term_ && o_.metrics != nullptr) {  // this replica's own term: its last proven renewal
    const UtcMillis last = o_.metrics->figures().last_renewal;
    if (last != UtcMillis{}) a.expiry = last + lease_ttl(o_.ttl);
  }
  a.leader = term_ && !stepping_down_ && term_->valid();
  return a;
}

LeaseAnswer LeaseView::answer_locked(SteadyTime arrived, SteadyTime now) {
  LeaseAnswer a = state_locked();
  if (!a.leader) return a;
  // The promise ends at the term's step-down deadline or `cap` after this
  // answer, whichever is first; counted from the arrival (which came after
  // the caller's sending), so the caller's end is no later than ours.
  const SteadyTime end = std::min(term_->deadline(), now + o_.cap);
  const auto v = std::chrono::floor<std::chrono::milliseconds>(end - arrived);
  a.leader = v.count() > 0;
  a.valid_for_ms = a.leader ? v.count() : 0;
  // What a stop waits out: the promise's end, plus 1000 ppm of it for a
  // caller's clock that runs slower than ours (NTP keeps rates within 500 ppm).
  if (a.leader) promised_until_ = std::max(promised_until_, arrived + v + v / 1000);
  return a;
}

void LeaseView::publish_locked(const char* event) {
  if (term_no_ > id_term_) {
    id_term_ = term_no_;
    id_seq_ = 1;
  } else {
    ++id_seq_;
  }
  LeaseAnswer a = state_locked();
  a.event = event;
  const std::string frame = event_frame(a);
  std::erase_if(streams_, [&](Stream& s) {
    if (s.compat) return false;
    if (s.reply.write(frame)) return false;
    s.reply.end();  // a reader that does not read: its stream ends, it reconnects for the state
    return true;
  });
  const SteadyTime now = clock_.steady_now();
  for (Poll& p : polls_) send_answer(p.reply, answer_locked(p.arrived, now));
  polls_.clear();
}

}  // namespace forgemeter::elector
