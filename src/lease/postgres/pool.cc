#include "lease/postgres/pool.h"

#include <algorithm>
#include <chrono>

namespace forgemeter::pg {

Pool::Pool(ConnectSettings settings, std::size_t max, Setup setup)
    : settings_(std::move(settings)), max_(max), setup_(std::move(setup)) {}

Pool::~Pool() = default;

Pool::Handle::~Handle() {
  if (pool_ && conn_) pool_->give_back(std::move(conn_));
}

void Pool::give_back(std::unique_ptr<Connection> c) {
  std::unique_ptr<Connection> closing;
  {
    core_detail::MutexLock lock(mu_);
    if (c->broken()) {
      closing = std::move(c);
      --open_;
    } else {
      idle_.push_back(std::move(c));
    }
  }
  cv_.notify_one();
  // `closing` is closed here, outside the lock.
}

std::size_t Pool::open_count() const {
  core_detail::MutexLock lock(mu_);
  return open_;
}

Pool::Handle Pool::checkout(const CallBound& bound, std::string& error) {
  for (;;) {
    std::unique_ptr<Connection> conn;
    bool open_new = false;
    {
      core_detail::UniqueLock lock(mu_);
      for (;;) {
        if (bound.passed()) {
          error = bound.stopped() ? "stopped waiting for a connection"
                                  : "no answer: deadline passed waiting for a connection";
          return {};
        }
        if (!idle_.empty()) {
          conn = std::move(idle_.back());  // the most recently used: warmest
          idle_.pop_back();
          break;
        }
        if (open_ < max_) {
          ++open_;
          open_new = true;
          break;
        }
        cv_.wait_for(lock.native(), bound.deadline().stop, std::chrono::milliseconds(bound.poll_ms()),
                     [&]() REQUIRES(mu_) { return !idle_.empty() || open_ < max_; });
      }
    }
    if (conn) {
      if (conn->usable_when_idle()) return Handle(this, std::move(conn));
      // Closed by the server while idle (restart, pg_terminate_backend): replace it.
      {
        core_detail::MutexLock lock(mu_);
        --open_;
      }
      conn.reset();
      cv_.notify_one();
      continue;
    }
    if (open_new) {
      auto fresh = Connection::open(settings_, bound, error);
      if (fresh) {
        std::string why = setup_ ? setup_(*fresh, bound) : std::string();
        if (why.empty()) return Handle(this, std::move(fresh));
        error = std::move(why);
        fresh.reset();
      }
      {
        core_detail::MutexLock lock(mu_);
        --open_;
      }
      cv_.notify_one();
      return {};
    }
  }
}

}  // namespace forgemeter::pg
