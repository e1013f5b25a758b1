// Internal: a small pool of connections, opened lazily, each prepared once.
//
// Thread-safe. A call checks out one connection for its statement and gives it
// back; a broken one is closed instead. At most `max` are open; a call that
// finds them all busy waits for one until its bound.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/mutex.h"
#include "lease/postgres/connection.h"

namespace forgemeter::pg {

class Pool {
 public:
  // Runs on each new connection before its first use (prepare statements);
  // returns an error text, or empty on success.
  using Setup = std::function<std::string(Connection&, const CallBound&)>;

  Pool(ConnectSettings settings, std::size_t max, Setup setup);
  ~Pool();

  class Handle {
   public:
    Handle() = default;
    Handle(Handle&& o) noexcept : pool_(o.pool_), conn_(std::move(o.conn_)) { o.pool_ = nullptr; }
    Handle& operator=(Handle&&) = delete;
    ~Handle();
    explicit operator bool() const { return conn_ != nullptr; }
    Connection& operator*() const { return *conn_; }
    Connection* operator->() const { return conn_.get(); }

   private:
    friend class Pool;
    Handle(Pool* p, std::unique_ptr<Connection> c) : pool_(p), conn_(std::move(c)) {}
    Pool* pool_ = nullptr;
    std::unique_ptr<Connection> conn_;
  };

  // A usable connection, or an empty handle with `error` set.
  Handle checkout(const CallBound& bound, std::string& error);

  std::size_t open_count() const;

 private:
  void give_back(std::unique_ptr<Connection> c);

  const ConnectSettings settings_;
  const std::size_t max_;
  const Setup setup_;
  mutable core_detail::Mutex mu_;
  std::condition_variable_any cv_;  // waits also end on the call's stop
  std::vector<std::unique_ptr<Connection>> idle_ GUARDED_BY(mu_);
  std::size_t open_ GUARDED_BY(mu_) = 0;  // idle + checked out + being opened
};

}  // namespace forgemeter::pg
