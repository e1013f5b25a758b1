// proxied_sweep.h — hour 4 of the demo: a replica's sweep through a
// `forgemeter proxy` of its own (the proxy's engine and the serving room,
// in process, on 127.0.0.1), as a service in another language would run
// it. The replica's client sends plain requests (its own meter counts
// nothing anyone reads); the proxy's Transport carries the replica's meter,
// its cache and the sweep's pace, so the replica's lines are the proxy's.
// The proxy is given the App's public key (as `forgemeter proxy --app`): it
// learns the installation of each token the replica mints through it and
// charges the token's requests to it; its clock is the demo's, which the
// JWTs' times and the tokens' expiries are on.
// Thread-safety: client() may be used from any thread.
#pragma once

#include <memory>
#include <string>

#include "demo/app_jwt_signer.h"
#include "demo/fast_clock.h"
#include "forgemeter/meter.h"
#include "forgemeter/transport.h"
#include "proxy/forwarder/forward.h"
#include "serve/server.h"
#include "testforge/forge.h"

namespace forgemeter::demo {

struct DemoPlan;

class ProxiedSweep {
 public:
  // The proxy's upstream requests are counted by `meter`; `app`: the App
  // whose JWTs it believes. Throws std::runtime_error when its listener
  // cannot start.
  ProxiedSweep(Meter& meter, FastClock& clock, const testforge::Forge& forge, const DemoPlan& plan,
               const AppJwtSigner& app);
  ~ProxiedSweep();
  // The client's Transport and the proxy's base URL ("http://127.0.0.1:PORT").
  Transport& client() { return client_; }
  const std::string& base() const { return base_; }

 private:
  Transport upstream_;  // the replica's meter, cache and pace
  proxy::Forwarder forwarder_;
  serve::Server server_;
  Meter client_meter_;  // the client's own: a plain HTTP client's, read by no one
  Transport client_;
  std::string base_;
};

}  // namespace forgemeter::demo
