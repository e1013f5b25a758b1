#include "lease/etcd/codec.h"

#include <openssl/evp.h>

#include <charconv>
#include <nlohmann/json.hpp>

namespace forgemeter::etcd {
namespace {

using lease_detail::LeaseRecord;
using nlohmann::json;

// A JSON value parsed without exceptions: discarded when the text is not JSON.
json parsed(std::string_view text) { return json::parse(text.begin(), text.end(), nullptr, false); }

const json* field(const json& j, const char* name) {
  if (!j.is_object()) return nullptr;
  auto it = j.find(name);
  return it == j.end() ? nullptr : &*it;
}

// The gateway writes int64 as strings and leaves zero out.
std::optional<std::int64_t> int64_field(const json& j, const char* name) {
  const json* f = field(j, name);
  if (f == nullptr) return 0;
  if (f->is_number_integer()) return f->get<std::int64_t>();
  if (!f->is_string()) return std::nullopt;
  const auto& s = f->get_ref<const std::string&>();
  std::int64_t v = 0;
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
  if (ec != std::errc{} || end != s.data() + s.size()) return std::nullopt;
  return v;
}

// The first key-value of a range answer, or an absent key.
std::optional<Kv> kv_of(const json& range, std::string& error) {
  const json* kvs = field(range, "kvs");
  if (kvs == nullptr || (kvs->is_array() && kvs->empty())) return Kv{};
  if (!kvs->is_array() || !(*kvs)[0].is_object()) {
    error = "etcd answered a range without key-values";
    return std::nullopt;
  }
  const json& kv = (*kvs)[0];
  const auto rev = int64_field(kv, "mod_revision");
  const json* value = field(kv, "value");
  std::optional<std::string> bytes = value && value->is_string() ? unbase64(value->get_ref<const std::string&>())
                                                                 : std::optional<std::string>(std::string());
  if (!rev || !bytes) {
    error = "etcd answered a key-value this store cannot read";
    return std::nullopt;
  }
  auto record = parse_record(*bytes);
  if (!record) {
    error = "the lease's key holds a value that is not a forgemeter lease record (left as it is)";
    return std::nullopt;
  }
  return Kv{*rev, std::move(*record)};
}

bool flag(const json& j, const char* name) {
  const json* v = field(j, name);
  return v != nullptr && v->is_boolean() && v->get<bool>();
}

std::optional<std::string> bytes_of(const json* kv, const char* name) {
  const json* v = kv != nullptr ? field(*kv, name) : nullptr;
  if (v == nullptr) return std::string();
  return v->is_string() ? unbase64(v->get_ref<const std::string&>()) : std::nullopt;
}

// The range end that covers every key starting with `prefix` (etcd's rule).
std::string prefix_end(std::string prefix) {
  while (!prefix.empty()) {
    auto& last = reinterpret_cast<unsigned char&>(prefix.back());
    if (last < 0xff) {
      ++last;
      return prefix;
    }
    prefix.pop_back();
  }
  return std::string(1, '\0');  // every key
}

// A release, a change of hands, a deletion, a key this store cannot read, or
// a request that the holder step down: anything but a renewal (same holder,
// term and request) wakes the waiters.
bool hands_changed(const json& event) {
  const json* type = field(event, "type");
  if (type != nullptr && type->is_string() && type->get<std::string>() == "DELETE") return true;
  const auto now = bytes_of(field(event, "kv"), "value");
  const json* prev_kv = field(event, "prev_kv");
  if (prev_kv == nullptr) return true;  // the key is new
  const auto before = bytes_of(prev_kv, "value");
  if (!now || !before) return true;
  const auto a = parse_record(*before), b = parse_record(*now);
  return !a || !b || a->holder != b->holder || a->term != b->term || a->resign_term != b->resign_term;
}

}  // namespace

std::string base64(std::string_view bytes) {
  std::string out(4 * ((bytes.size() + 2) / 3) + 1, '\0');
  const int n = EVP_EncodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(bytes.data()), static_cast<int>(bytes.size()));
  out.resize(static_cast<std::size_t>(n));
  return out;
}

std::optional<std::string> unbase64(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out(text.size() / 4 * 3 + 1, '\0');
  const int n = EVP_DecodeBlock(reinterpret_cast<unsigned char*>(out.data()),
                                reinterpret_cast<const unsigned char*>(text.data()), static_cast<int>(text.size()));
  if (n < 0) return std::nullopt;
  // EVP_DecodeBlock counts the padding as zero bytes.
  std::size_t pad = 0;
  for (auto it = text.rbegin(); it != text.rend() && *it == '=' && pad < 2; ++it) ++pad;
  out.resize(static_cast<std::size_t>(n) - pad);
  return out;
}

std::string record_value(const LeaseRecord& r) {
  json j{{"holder", r.holder}, {"expiry_ms", r.expiry.time_since_epoch().count()}, {"term", r.term}};
  if (r.resign_term != 0) j["resign_term"] = r.resign_term;  // only once asked: older readers see the same record
  return j.dump();
}

std::optional<LeaseRecord> parse_record(std::string_view value) {
  const json j = parsed(value);
  const json* holder = field(j, "holder");
  const json* expiry = field(j, "expiry_ms");
  const json* term = field(j, "term");
  if (holder == nullptr || !holder->is_string() || expiry == nullptr || !expiry->is_number_integer() ||
      term == nullptr || !term->is_number_unsigned())
    return std::nullopt;
  LeaseRecord r;
  r.holder = holder->get<std::string>();
  r.expiry = UtcMillis(std::chrono::milliseconds(expiry->get<std::int64_t>()));
  r.term = term->get<std::uint64_t>();
  if (const json* asked = field(j, "resign_term"); asked != nullptr && asked->is_number_unsigned())
    r.resign_term = asked->get<std::uint64_t>();
  return r;
}

std::string range_request(std::string_view key) { return json{{"key", base64(key)}}.dump(); }

std::string txn_request(std::string_view key, std::int64_t seen, const LeaseRecord& next) {
  const std::string k = base64(key);
  json compare = {{"key", k}, {"target", "MOD"}, {"result", "EQUAL"}, {"mod_revision", std::to_string(seen)}};
  return json{{"compare", json::array({compare})},
              {"success", json::array({{{"request_put", {{"key", k}, {"value", base64(record_value(next))}}}}})},
              {"failure", json::array({{{"request_range", {{"key", k}}}}})}}
      .dump();
}

std::string authenticate_request(std::string_view user, std::string_view password) {
  return json{{"name", user}, {"password", password}}.dump();
}

std::optional<Kv> parse_range(std::string_view body, std::string& error) {
  const json j = parsed(body);
  if (!j.is_object()) {
    error = "etcd's range answer is not JSON";
    return std::nullopt;
  }
  return kv_of(j, error);
}

std::optional<TxnAnswer> parse_txn(std::string_view body, const LeaseRecord& written, std::string& error) {
  const json j = parsed(body);
  if (!j.is_object()) {
    error = "etcd's transaction answer is not JSON";
    return std::nullopt;
  }
  TxnAnswer a;
  const json* ok = field(j, "succeeded");
  a.succeeded = ok != nullptr && ok->is_boolean() && ok->get<bool>();
  if (a.succeeded) {
    // The put's mod_revision is the transaction's revision.
    const json* header = field(j, "header");
    const auto rev = header ? int64_field(*header, "revision") : std::nullopt;
    if (!rev || *rev <= 0) {
      error = "etcd's transaction answer has no revision";
      return std::nullopt;
    }
    a.kv = Kv{*rev, written};
    return a;
  }
  const json* responses = field(j, "responses");
  if (responses == nullptr || !responses->is_array() || responses->empty()) {
    error = "etcd's failed transaction answer has no range";
    return std::nullopt;
  }
  const json* range = field((*responses)[0], "response_range");
  if (range == nullptr) {
    error = "etcd's failed transaction answer has no range";
    return std::nullopt;
  }
  auto kv = kv_of(*range, error);
  if (!kv) return std::nullopt;
  a.kv = std::move(*kv);
  return a;
}

std::optional<std::string> parse_token(std::string_view body, std::string& error) {
  const json j = parsed(body);
  const json* token = field(j, "token");
  if (token == nullptr || !token->is_string() || token->get_ref<const std::string&>().empty()) {
    error = "etcd's authenticate answer has no token";
    return std::nullopt;
  }
  return token->get<std::string>();
}

GatewayError parse_error(std::string_view body) {
  const json j = parsed(body);
  GatewayError e;
  if (const json* code = field(j, "code"); code && code->is_number_integer()) e.code = code->get<int>();
  for (const char* name : {"message", "error"})
    if (const json* m = field(j, name); m && m->is_string() && e.message.empty()) e.message = m->get<std::string>();
  return e;
}

std::string watch_request(std::string_view prefix, std::int64_t start_revision) {
  json create = {{"key", base64(prefix)}, {"range_end", base64(prefix_end(std::string(prefix)))}, {"prev_kv", true}};
  if (start_revision > 0) create["start_revision"] = std::to_string(start_revision);
  return json{{"create_request", create}}.dump();
}

std::optional<WatchMessage> parse_watch(std::string_view line, std::string& error) {
  const json j = parsed(line);
  const json* result = field(j, "result");
  if (result == nullptr || !result->is_object()) {
    error = "etcd's watch sent something that is not a watch message";
    return std::nullopt;
  }
  WatchMessage m;
  m.created = flag(*result, "created");
  m.canceled = flag(*result, "canceled");
  m.compacted = int64_field(*result, "compact_revision").value_or(0);
  if (const json* header = field(*result, "header")) m.revision = int64_field(*header, "revision").value_or(0);
  if (const json* events = field(*result, "events"); events != nullptr && events->is_array())
    for (const json& e : *events) {
      if (!hands_changed(e)) continue;
      if (auto key = bytes_of(field(e, "kv"), "key"); key && !key->empty()) m.keys.push_back(std::move(*key));
    }
  return m;
}

}  // namespace forgemeter::etcd
