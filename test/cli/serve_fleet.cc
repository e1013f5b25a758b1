#include "serve_fleet.h"

#include <curl/curl.h>
#include <signal.h>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <sstream>

#include "forgemeter_bin.h"
#include "support/curl_body.h"
#include "support/eventually.h"
#include "support/free_port.h"

namespace fmtest {

std::int64_t steady_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

namespace {

struct Got {
  long status = 0;
  std::string body;
};

Got http(const std::string& url, const std::string& method, long timeout_ms, const std::string& auth = "") {
  Got out;
  CURL* curl = curl_easy_init();
  curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
  curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
  curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, append_body);
  curl_easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  curl_slist* headers = nullptr;
  if (!auth.empty()) headers = curl_slist_append(headers, ("Authorization: Bearer " + auth).c_str());
  curl_easy_setopt(curl, CURLOPT_HTTPHEADER, headers);
  if (curl_easy_perform(curl) == CURLE_OK) curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  curl_slist_free_all(headers);
  curl_easy_cleanup(curl);
  return out;
}

}  // namespace

EventTap::EventTap(const std::string& url) {
  reader_ = std::thread([this, url] {
    CURL* curl = curl_easy_init();
    curl_easy_setopt(curl, CURLOPT_URL, url.c_str());
    curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
    curl_easy_setopt(curl, CURLOPT_NOPROGRESS, 0L);
    curl_easy_setopt(curl, CURLOPT_XFERINFODATA, this);
    curl_easy_setopt(
        curl, CURLOPT_XFERINFOFUNCTION, +[](void* self, curl_off_t, curl_off_t, curl_off_t, curl_off_t) {
          return static_cast<EventTap*>(self)->done_.load() ? 1 : 0;  // non-zero: abort
        });
    curl_easy_setopt(curl, CURLOPT_WRITEDATA, this);
    curl_easy_setopt(
        curl, CURLOPT_WRITEFUNCTION, +[](char* data, std::size_t size, std::size_t n, void* self) {
          auto* tap = static_cast<EventTap*>(self);
          std::lock_guard lock(tap->mu_);
          tap->text_.append(data, size * n);
          return size * n;
        });
    curl_easy_perform(curl);
    curl_easy_cleanup(curl);
  });
}

EventTap::~EventTap() {
  done_ = true;
  reader_.join();
}

std::string EventTap::text() const {
  std::lock_guard lock(mu_);
  return text_;
}

ServeFleet::ServeFleet(std::string store, std::string name, std::vector<std::string> args, int replicas, bool poll,
                       bool owners)
    : store_(std::move(store)),
      name_(std::move(name)),
      args_(std::move(args)),
      owners_(owners),
      token_("t0ken-" + name_) {
  write_file(dir_.file("token"), token_ + "\n");
  for (int i = 0; i < replicas; ++i) {
    ports_.push_back(free_loopback_port());
    admin_ports_.push_back(free_loopback_port());
    pids_.push_back(-1);
  }
  for (int i = 0; poll && i < replicas; ++i) pollers_.emplace_back([this, i] { this->poll(i); });
}

ServeFleet::~ServeFleet() {
  done_ = true;
  for (auto& t : pollers_) t.join();
  for (pid_t& p : pids_)
    if (p > 0) {
      ::kill(p, SIGCONT);
      ::kill(p, SIGKILL);
      fmtest::wait_exit(p, std::chrono::seconds(10));
    }
}

void ServeFleet::start(int i) {
  std::vector<std::string> argv{forgemeter_bin(),
                                "lease",
                                "serve",
                                "--store",
                                store_,
                                "--listen",
                                "127.0.0.1:" + std::to_string(ports_[i]),
                                "--admin-listen",
                                "127.0.0.1:" + std::to_string(admin_ports_[i]),
                                "--admin-token-file",
                                dir_.file("token")};
  if (owners_) argv.insert(argv.end(), {"--owner", "r" + std::to_string(i)});
  argv.insert(argv.end(), args_.begin(), args_.end());
  argv.push_back(name_);
  const std::string base = dir_.file("r" + std::to_string(i));
  Spawned s = spawn_process(argv, SpawnOptions{base + ".out", base + ".err", /*append=*/true, {}, {}});
  pids_[i] = s.pid;
  const std::string health = "http://127.0.0.1:" + std::to_string(ports_[i]) + "/healthz";
  if (!eventually([&] { return http(health, "GET", 200).status != 0; }, std::chrono::seconds(20)))
    throw std::runtime_error("replica r" + std::to_string(i) + " does not serve: " + err(i));
}

void ServeFleet::signal(int i, int sig) { ::kill(pids_[i], sig); }

int ServeFleet::wait_exit(int i, std::chrono::milliseconds timeout) {
  const int code = fmtest::wait_exit(pids_[i], timeout);
  if (code != -1) pids_[i] = -1;
  return code;
}

std::string ServeFleet::err(int i) const { return read_file(dir_.file("r" + std::to_string(i) + ".err")); }

long ServeFleet::resign(int i, const std::string& token) {
  const std::string url = "http://127.0.0.1:" + std::to_string(admin_ports_[i]) + "/leases/" + name_ + "/resign";
  return http(url, "POST", 5000, token.empty() ? token_ : token).status;
}

void ServeFleet::poll(int i) {
  const std::string url = "http://127.0.0.1:" + std::to_string(ports_[i]) + "/leases/" + name_;
  while (!done_) {
    const std::int64_t tick = steady_ns();
    PolledAnswer a;
    a.replica = i;
    a.send_ns = steady_ns();
    const Got got = http(url, "GET", 100);
    a.recv_ns = steady_ns();
    if (got.status == 200) {
      const auto j = nlohmann::json::parse(got.body, nullptr, false);
      if (j.is_object()) {
        a.answered = true;
        a.leader = j.value("leader", false);
        a.valid_ms = j.value("valid_for_ms", std::int64_t{0});
        a.term = j.value("term", std::uint64_t{0});
      }
    }
    {
      std::lock_guard lock(mu_);
      answers_.push_back(a);
    }
    const std::int64_t next = tick + 20'000'000;
    const std::int64_t left = next - steady_ns();
    if (left > 0)
      std::this_thread::sleep_for(std::chrono::nanoseconds(left));  // the polling period, not a wait for a condition
  }
}

std::optional<int> ServeFleet::leader(std::int64_t since) const {
  std::lock_guard lock(mu_);
  std::map<int, const PolledAnswer*> latest;
  for (const PolledAnswer& a : answers_)
    if (a.answered && a.send_ns >= since) latest[a.replica] = &a;
  for (const auto& [i, a] : latest)
    if (a->leader) return i;
  return std::nullopt;
}

std::optional<PolledAnswer> ServeFleet::first_leader(int i, std::int64_t since) const {
  std::lock_guard lock(mu_);
  for (const PolledAnswer& a : answers_)
    if (a.replica == i && a.leader && a.send_ns >= since) return a;
  return std::nullopt;
}

std::vector<PolledAnswer> ServeFleet::answers() const {
  std::lock_guard lock(mu_);
  return answers_;
}

std::string ServeFleet::overlaps() const { return sweep(nullptr); }

std::int64_t ServeFleet::closest_ns() const {
  std::int64_t closest = INT64_MAX;
  sweep(&closest);
  return closest;
}

std::string ServeFleet::sweep(std::int64_t* closest) const {
  std::vector<PolledAnswer> promises;
  for (const PolledAnswer& a : answers())
    if (a.leader) promises.push_back(a);
  std::sort(promises.begin(), promises.end(), [](const auto& x, const auto& y) { return x.send_ns < y.send_ns; });
  std::map<int, PolledAnswer> furthest;  // per replica, the promise reaching furthest so far
  for (const PolledAnswer& p : promises) {
    for (const auto& [r, q] : furthest) {
      if (r != p.replica && closest != nullptr) *closest = std::min(*closest, p.send_ns - q.promise_end());
      if (r != p.replica && q.promise_end() > p.send_ns) {
        std::ostringstream out;
        out << "r" << q.replica << "'s promise (term " << q.term << ", sent at " << q.send_ns / 1'000'000 % 100'000
            << " ms, " << q.valid_ms << " ms) ends " << (q.promise_end() - p.send_ns) / 1000 << " us after r"
            << p.replica << "'s (term " << p.term << ") was sent";
        return out.str();
      }
    }
    auto [at, fresh] = furthest.try_emplace(p.replica, p);
    if (!fresh && p.promise_end() > at->second.promise_end()) at->second = p;
  }
  return "";
}

}  // namespace fmtest
