#include "cli/store_check.h"

#include <libpq-fe.h>
#include <poll.h>

#include <cerrno>

#include <array>
#include <memory>
#include <sstream>
#include <string_view>

#include "cli/secrets.h"

namespace forgemeter::cli {

namespace {

constexpr std::array<std::string_view, 4> kPermanentStates{"28P01", "28000", "3D000", "42501"};

// One failure line of libpq's message is permanent when the server's SQLSTATE
// (`FATAL:  28P01: …`) is one of the above, or libpq had no password to send.
bool permanent_line(std::string_view line) {
  for (auto state : kPermanentStates) {
    for (std::string_view severity : {"FATAL:  ", "ERROR:  "})
      if (line.find(std::string(severity) + std::string(state) + ":") != std::string_view::npos) return true;
  }
  return line.find("no password supplied") != std::string_view::npos;
}

// libpq's message without its LOCATION lines and hints, one line; permanent
// when every failure line in it is (several hosts: each must refuse us).
std::pair<bool, std::string> classify(const char* message) {
  std::istringstream in(message != nullptr ? message : "");
  std::string line, text;
  bool any = false, all = true;
  while (std::getline(in, line)) {
    if (line.empty() || line.rfind("LOCATION:", 0) == 0 || line[0] == '\t' || line[0] == ' ') continue;
    any = true;
    all = all && permanent_line(line);
    text += (text.empty() ? "" : "; ") + line;
  }
  return {any && all, text};
}

}  // namespace

std::string store_misconfiguration(const std::string& store, std::chrono::milliseconds bound) {
  if (store == "memory:") return {};
  char* err = nullptr;
  PQconninfoOption* opts = PQconninfoParse(store.c_str(), &err);
  if (opts == nullptr) {
    std::string why = classify(err != nullptr ? err : "cannot parse the connection string").second;
    if (err != nullptr) PQfreemem(err);
    return scrub(why);
  }
  PQconninfoFree(opts);

  const auto until = std::chrono::steady_clock::now() + bound;
  const char* keys[] = {"dbname", "application_name", nullptr};
  const char* values[] = {store.c_str(), "forgemeter store check", nullptr};
  std::unique_ptr<PGconn, void (*)(PGconn*)> conn(PQconnectStartParams(keys, values, 1), PQfinish);
  if (!conn) return {};
  PQsetErrorVerbosity(conn.get(), PQERRORS_VERBOSE);  // before the server answers: its SQLSTATE in the message
  if (PQstatus(conn.get()) == CONNECTION_BAD) {
    // Options are checked before anything is sent; a host name that does not resolve fails here too.
    auto [permanent, text] = classify(PQerrorMessage(conn.get()));
    return permanent || text.rfind("invalid ", 0) == 0 ? scrub(text) : std::string();
  }
  PostgresPollingStatusType st = PGRES_POLLING_WRITING;
  while (st != PGRES_POLLING_OK && st != PGRES_POLLING_FAILED) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(until - std::chrono::steady_clock::now());
    if (left.count() <= 0) return {};  // no answer in time: maybe later, the campaign will see
    pollfd p{PQsocket(conn.get()), static_cast<short>(st == PGRES_POLLING_READING ? POLLIN : POLLOUT), 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) < 0 && errno != EINTR) return {};
    st = PQconnectPoll(conn.get());
  }
  if (st == PGRES_POLLING_OK) return {};
  auto [permanent, text] = classify(PQerrorMessage(conn.get()));
  return permanent ? scrub(text) : std::string();
}

}  // namespace forgemeter::cli
