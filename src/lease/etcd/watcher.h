// Internal: the etcd store's watch on its key prefix — one `/v3/watch`
// streamed through the JSON gateway over libcurl, on a thread of its own;
// each release or change of hands it reports (codec.h: renewals are skipped)
// goes to the store's ChangeBoard.
//
// Started by the first start() (a candidate's first change_mark), from the
// revision after the latest one the store has seen (`tracked`), so a change
// since the store's last answer is delivered. It resumes after the last
// revision it delivered when its stream ends (a member down: the next member;
// canceled), and from now when etcd compacted past it. Each time it opens
// (and when it loses its stream), every waiter is woken once (changes may have
// been missed) and polls. Reconnects 50 ms apart, doubling to 2 s.
//
// Thread-safety: start() and watching() from any thread.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <string>
#include <thread>

#include "forgemeter/etcd_store.h"
#include "lease/change_board.h"
#include "lease/etcd/gateway.h"

namespace forgemeter::etcd {

class Watcher {
 public:
  Watcher(const EtcdStoreOptions& options, Gateway& gateway, lease_detail::ChangeBoard& board,
          std::function<std::int64_t()> tracked);
  ~Watcher();  // stops the thread and joins it
  Watcher(const Watcher&) = delete;
  Watcher& operator=(const Watcher&) = delete;

  void start();  // idempotent
  bool watching() const { return watching_.load(std::memory_order_acquire); }

 private:
  struct Stream;
  void run(const std::stop_token& stop);
  // One stream on `member` until it ends; false when it never opened.
  bool stream(std::size_t member, const std::stop_token& stop);

  const EtcdStoreOptions& options_;
  Gateway& gateway_;
  lease_detail::ChangeBoard& board_;
  const std::function<std::int64_t()> tracked_;
  std::int64_t next_revision_ = 0;  // the watch thread's: where the next stream starts (0: now)
  std::atomic<bool> started_{false}, watching_{false};
  std::jthread thread_;
};

}  // namespace forgemeter::etcd
