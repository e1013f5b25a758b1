// Server::stop (server.h): listeners closed, requests in flight given their
// grace, what is left answered 503 or ended, the daemons joined.
#include <unistd.h>

#include "serve/server_state.h"

namespace forgemeter::serve {
namespace {

// Stops accepting: the socket is ours again and a unix socket's file goes.
// The socket is closed only once the daemons are stopped: quiescing tells
// their threads to drop it, and closing it before they have would free its
// number for the next socket opened while one of them still names it.
void quiesce(Listener& l) {
  if (l.daemon) MHD_quiesce_daemon(l.daemon->mhd);
  if (l.address.is_unix()) ::unlink(l.address.path.c_str());
}

}  // namespace

void Server::stop(std::chrono::milliseconds grace) {
  Impl& s = *impl_;
  if (s.stopped.exchange(true)) return;
  s.draining.store(true);
  std::vector<Listener> listeners;
  {
    core_detail::MutexLock lock(s.mu);
    for (Listener& l : s.listeners) quiesce(l);
    listeners = std::move(s.listeners);
  }
  // Requests in flight, streams among them, get the grace to finish; a
  // stream its owner has not ended by then is ended below.
  {
    core_detail::UniqueLock lock(s.mu);
    s.settled.wait_for(lock.native(), grace, [&]() REQUIRES(s.mu) { return s.in_flight.load() == 0; });
    for (Exchange* ex : s.live) {
      ex->end();
      ex->answer(503, {{"Content-Type", "text/plain"}, {"Connection", "close"}}, "shutting down\n");
    }
  }
  for (Listener& l : listeners) {
    for (auto& old : l.retired) MHD_stop_daemon(old->mhd);
    if (l.daemon) MHD_stop_daemon(l.daemon->mhd);
    if (l.fd >= 0) ::close(l.fd);
  }
  s.deadlines.reset();
}

}  // namespace forgemeter::serve
