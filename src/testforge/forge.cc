#include "testforge/forge.h"

#include <arpa/inet.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <thread>

#include "testforge/app_tokens.h"
#include "testforge/routes.h"
#include "testforge/test_ca.h"

namespace forgemeter::testforge {
namespace {

// cpp-httplib listens with a backlog of 5: connects of a burst beyond it are
// dropped, and TCP tries them again only after 1 s (then 3 s, 7 s), which a
// test of 150 requests at once would read as the Transport's doing. Listening
// again on the bound socket widens its backlog (Linux); the socket is found
// by its port among this process's descriptors.
void widen_backlog(int port) {
  std::error_code ec;
  for (const auto& e : std::filesystem::directory_iterator("/proc/self/fd", ec)) {
    const int fd = std::atoi(e.path().filename().c_str());
    int listening = 0;
    socklen_t len = sizeof listening;
    if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &len) != 0 || listening == 0) continue;
    sockaddr_in a{};
    socklen_t alen = sizeof a;
    if (getsockname(fd, reinterpret_cast<sockaddr*>(&a), &alen) == 0 && a.sin_family == AF_INET &&
        ntohs(a.sin_port) == port)
      ::listen(fd, 1024);
  }
}

// One listening server and the thread that runs it.
struct Running {
  std::unique_ptr<httplib::Server> server;
  Listener where;
  std::thread thread;

  void start(std::unique_ptr<httplib::Server> s, const std::string& scheme, std::size_t threads) {
    server = std::move(s);
    server->new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
    server->set_keep_alive_max_count(1'000'000);
    server->set_keep_alive_timeout(30);
    server->set_tcp_nodelay(true);
    const int port = server->bind_to_any_port("127.0.0.1");
    if (port <= 0) throw std::runtime_error("loopback forge: cannot listen on 127.0.0.1");
    widen_backlog(port);
    where = Listener{scheme, port};
  }
  void run() {
    thread = std::thread([s = server.get()] { s->listen_after_bind(); });
    // stop() only takes effect once the accept loop runs: wait for it.
    while (!server->is_running()) std::this_thread::yield();
  }
  void stop() {
    if (!thread.joinable()) return;
    server->stop();
    thread.join();
  }
};

std::string write_temp_file(const std::string& contents) {
  std::string path = (std::filesystem::temp_directory_path() / "forgemeter-test-ca-XXXXXX.pem").string();
  const int fd = mkstemps(path.data(), 4);
  if (fd < 0) throw std::runtime_error("loopback forge: cannot create a temporary CA file");
  const bool ok = ::write(fd, contents.data(), contents.size()) == static_cast<ssize_t>(contents.size());
  ::close(fd);
  if (!ok) throw std::runtime_error("loopback forge: cannot write the temporary CA file");
  return path;
}

BudgetLimits limits_of(const ForgeOptions& o) {
  return {.installation = o.installation_limit,
          .graphql = o.graphql_limit,
          .search = o.search_limit,
          .code_search = o.code_search_limit,
          .gitlab = o.gitlab_limit,
          .anonymous = o.anonymous_limit,
          .core_window = o.core_window};
}

}  // namespace

struct Forge::Impl {
  explicit Impl(const ForgeOptions& o)
      : clock(o.clock ? *o.clock : system_clock()),
        budgets(clock, limits_of(o)),
        truth(o.record_limit),
        secondary(o.secondary),
        resources(clock.now(), o.pulls),
        apps(o.apps, o.token_lifetime),
        accounting{clock, truth, budgets, secondary, resources, apps, o.gitlab_429_without_headers} {}

  const Clock& clock;
  Budgets budgets;
  GroundTruth truth;
  SecondaryLimits secondary;
  Resources resources;
  AppTokens apps;
  Accounting accounting;
  FlakyCounters flaky;
  Holds holds;
  std::unique_ptr<TestCa> ca;
  std::string ca_file;
  Running main, alt, tls;

  void add(Running& r, std::unique_ptr<httplib::Server> s, const std::string& scheme, std::size_t threads) {
    r.start(std::move(s), scheme, threads);
    install_accounting(*r.server, r.where, accounting);
    install_routes(*r.server, r.where, flaky, holds, resources);
    install_app_routes(*r.server, r.where, apps, clock);
    r.server->set_exception_handler([](const httplib::Request&, httplib::Response& res, const std::exception_ptr&) {
      res.status = 500;
      res.set_content("forge handler failed\n", "text/plain");
    });
    r.run();
  }
};

Forge::Forge(const ForgeOptions& options) : impl_(std::make_unique<Impl>(options)) {
  if (options.tls) {
    impl_->ca = std::make_unique<TestCa>();
    impl_->ca_file = write_temp_file(impl_->ca->ca_pem());
  }
  try {
    impl_->add(impl_->main, std::make_unique<httplib::Server>(), "http", options.threads);
    impl_->add(impl_->alt, std::make_unique<httplib::Server>(), "http", 8);
    if (options.tls) {
      auto s = std::make_unique<httplib::SSLServer>(impl_->ca->server_cert(), impl_->ca->server_key());
      if (!s->is_valid()) throw std::runtime_error("loopback forge: TLS listener is not valid");
      impl_->add(impl_->tls, std::move(s), "https", 16);
    }
  } catch (...) {
    stop();
    if (!impl_->ca_file.empty()) std::remove(impl_->ca_file.c_str());
    throw;
  }
}

Forge::~Forge() {
  stop();
  if (!impl_->ca_file.empty()) std::remove(impl_->ca_file.c_str());
}

void Forge::stop() {
  impl_->holds.release_all();  // a held request would keep its server thread, and stop() waits for them
  impl_->main.stop();
  impl_->alt.stop();
  impl_->tls.stop();
}

int Forge::port() const noexcept { return impl_->main.where.port; }
int Forge::alt_port() const noexcept { return impl_->alt.where.port; }
int Forge::tls_port() const noexcept { return impl_->tls.where.port; }

std::string Forge::url(std::string_view host, std::string_view path) const {
  return "http://" + std::string(host) + ":" + std::to_string(port()) + std::string(path);
}
std::string Forge::alt_url(std::string_view host, std::string_view path) const {
  return "http://" + std::string(host) + ":" + std::to_string(alt_port()) + std::string(path);
}
std::string Forge::tls_url(std::string_view host, std::string_view path) const {
  return "https://" + std::string(host) + ":" + std::to_string(tls_port()) + std::string(path);
}

std::vector<std::string> Forge::resolve() const {
  std::vector<std::string> out;
  auto add = [&](std::string_view h) {
    for (int p : {port(), alt_port(), tls_port()})
      if (p > 0) out.push_back(std::string(h) + ":" + std::to_string(p) + ":127.0.0.1");
  };
  for (std::string_view h : kHosts) add(h);
  for (std::string_view h : kOtherForgeHosts) add(h);
  return out;
}

const std::string& Forge::ca_pem() const noexcept {
  static const std::string none;
  return impl_->ca ? impl_->ca->ca_pem() : none;
}
const std::string& Forge::ca_file() const noexcept { return impl_->ca_file; }
GroundTruth& Forge::truth() noexcept { return impl_->truth; }
Budgets& Forge::budgets() noexcept { return impl_->budgets; }
SecondaryLimits& Forge::secondary() noexcept { return impl_->secondary; }
const Clock& Forge::clock() const noexcept { return impl_->clock; }
std::uint64_t Forge::tokens_minted(std::uint64_t installation) const { return impl_->apps.minted(installation); }

void Forge::limit_secondary(std::uint64_t installation, std::chrono::seconds duration, bool send_retry_after,
                            int status) {
  impl_->secondary.limit(installation, impl_->clock.now() + duration, send_retry_after, status);
}

std::optional<UtcMillis> Forge::secondary_limited_until(std::uint64_t installation) const {
  return impl_->secondary.limited_until(installation, impl_->clock.now());
}

std::uint64_t Forge::bump(std::string_view path) { return impl_->resources.bump(path, impl_->clock.now()); }

std::string Forge::etag(std::string_view path, std::string_view authorization, std::string_view accept,
                        std::string_view accept_encoding) const {
  return impl_->resources.represent({path, authorization, accept, accept_encoding}).etag;
}

void Forge::release(const std::string& key) { impl_->holds.release(key); }

bool Forge::await_held(const std::string& key, std::size_t n, std::chrono::milliseconds timeout) const {
  return impl_->holds.await_held(key, n, timeout);
}

std::string redirect_path(std::string_view to, int status) {
  static constexpr char hex[] = "0123456789ABCDEF";
  std::string out = "/redirect?status=" + std::to_string(status) + "&to=";
  for (unsigned char c : to) {
    if (std::isalnum(c) || c == '-' || c == '.' || c == '_' || c == '~') {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 15];
    }
  }
  return out;
}

}  // namespace forgemeter::testforge
