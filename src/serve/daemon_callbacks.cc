// The callbacks libmicrohttpd makes on its threads, and the daemons that
// make them (server_state.h). Nothing thrown leaves a callback: a handler
// that throws answers 500.
#include <arpa/inet.h>
#include <sys/socket.h>

#include <chrono>
#include <exception>

#include <fmt/format.h>

#include "core/ascii.h"
#include "serve/body_reader.h"
#include "serve/server_state.h"

namespace forgemeter::serve {
namespace {

using Impl = Server::Impl;

ConnectionState* state_of(MHD_Connection* c) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
  return info ? static_cast<ConnectionState*>(info->socket_context) : nullptr;
}

std::string peer_of(MHD_Connection* c) {
  const MHD_ConnectionInfo* info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  if (info == nullptr || info->client_addr == nullptr) return "unix";
  char text[INET6_ADDRSTRLEN] = "";
  const sockaddr* sa = info->client_addr;
  if (sa->sa_family == AF_INET)
    ::inet_ntop(AF_INET, &reinterpret_cast<const sockaddr_in*>(sa)->sin_addr, text, sizeof text);
  else if (sa->sa_family == AF_INET6)
    ::inet_ntop(AF_INET6, &reinterpret_cast<const sockaddr_in6*>(sa)->sin6_addr, text, sizeof text);
  else
    return "unix";
  return text;
}

void on_connection(void* cls, MHD_Connection* c, void** socket_context, MHD_ConnectionNotificationCode code) {
  auto* s = static_cast<Impl*>(cls);
  if (code == MHD_CONNECTION_NOTIFY_STARTED) {
    auto* conn = new ConnectionState();
    *socket_context = conn;
    conn->probe_only = s->open.fetch_add(1) + 1 > s->options.max_connections;
    // A probe sends its request at once: a slot of the reserve is not held long.
    const Duration timeout = conn->probe_only ? Duration(std::chrono::seconds(1)) : Duration::max();
    if (const MHD_ConnectionInfo* fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD))
      s->deadlines->accepted(c, fd->connect_fd, timeout);
    return;
  }
  s->open.fetch_sub(1);
  s->deadlines->closed(c);  // before libmicrohttpd closes the socket
  delete static_cast<ConnectionState*>(*socket_context);
  *socket_context = nullptr;
}

// Called once per request with its raw target, before the headers are read:
// the exchange starts here, owned by the connection.
void* on_target(void* cls, const char* uri, MHD_Connection* c) {
  auto* s = static_cast<Impl*>(cls);
  ConnectionState* conn = state_of(c);
  if (conn == nullptr) return nullptr;
  ServeRequest request;
  const std::string_view target(uri);
  const std::size_t q = target.find('?');
  request.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) request.query = std::string(target.substr(q + 1));
  conn->current = std::make_shared<Exchange>(std::move(request), s->options.max_stream_buffer, s->clock().now(),
                                             s->clock().steady_now());
  conn->current->probe_only = conn->probe_only;
  return conn->current.get();
}

// The fields as libmicrohttpd parsed them in place, and where each lies in
// its buffer (for smuggled_nul()).
struct HeadFields {
  ServeRequest& request;
  std::vector<std::pair<const char*, std::size_t>> spans;
};

MHD_Result collect_header(void* cls, MHD_ValueKind, const char* key, size_t key_size, const char* value,
                          size_t value_size) {
  auto* head = static_cast<HeadFields*>(cls);
  head->request.headers.emplace_back(std::string(key, key_size),
                                     value ? std::string(value, value_size) : std::string());
  head->spans.emplace_back(key, key_size);
  if (value) head->spans.emplace_back(value, value_size);
  return MHD_YES;
}

// Whether a field held a NUL: libmicrohttpd parses the head in place and
// hands a value over as the C string before it, so the bytes after it lie
// in the head's buffer outside every name and value it handed over (its own
// separators it turns to NUL). Such a request is refused, never forwarded
// cut short.
bool smuggled_nul(const HeadFields& head, const char* block_end) {
  if (head.spans.empty()) return false;
  const char* from = head.spans.front().first;
  for (const auto& [at, size] : head.spans) from = std::min(from, at);
  if (block_end <= from || block_end - from > (1 << 20)) return false;
  std::vector<bool> covered(static_cast<std::size_t>(block_end - from));
  for (const auto& [at, size] : head.spans)
    for (std::size_t i = 0; i < size && at + i < block_end; ++i)
      covered[static_cast<std::size_t>(at + i - from)] = true;
  for (std::size_t i = 0; i < covered.size(); ++i) {
    const char ch = from[i];
    if (!covered[i] && ch != '\0' && ch != ' ' && ch != '\t' && ch != ':' && ch != '\r' && ch != '\n') return true;
  }
  return false;
}

enum class Head : std::uint8_t { buffered, streamed, too_large, bad_field };

// The head of a request: its fields; a body the owner streams gets its
// reader, one too large to buffer is refused at once.
Head read_head(Impl* s, MHD_Connection* c, Exchange& ex, const char* method) {
  ServeRequest& r = ex.request();
  r.method = method;
  r.peer = peer_of(c);
  r.tls = MHD_get_connection_info(c, MHD_CONNECTION_INFO_GNUTLS_SESSION) != nullptr;
  HeadFields fields{r, {}};
  MHD_get_connection_values_n(c, MHD_HEADER_KIND, collect_header, &fields);
  s->deadlines->headers_read(c);
  const MHD_ConnectionInfo* size = MHD_get_connection_info(c, MHD_CONNECTION_INFO_REQUEST_HEADER_SIZE);
  if (size != nullptr && smuggled_nul(fields, method + size->header_size)) return Head::bad_field;
  const auto length = r.content_length();
  const bool has_body = length ? *length > 0 : r.header("Transfer-Encoding").has_value();
  if (has_body && s->options.stream_body && s->options.stream_body(r)) {
    r.body_reader = std::make_shared<BodyReader>(length, s->options.max_body_bytes);
    return Head::streamed;
  }
  return length && *length > s->options.max_body_bytes ? Head::too_large : Head::buffered;
}

ssize_t read_stream(void* cls, uint64_t, char* buf, size_t max) {
  const long n = (*static_cast<std::shared_ptr<Exchange>*>(cls))->read_stream(buf, max);
  if (n == -1) return MHD_CONTENT_READER_END_OF_STREAM;
  if (n < 0) return MHD_CONTENT_READER_END_WITH_ERROR;
  return n;
}

// The stream's reference to its exchange, dropped when libmicrohttpd is
// done with the response.
void release_stream(void* cls) { delete static_cast<std::shared_ptr<Exchange>*>(cls); }

void release_body(void* cls) { delete static_cast<std::string*>(cls); }

// Fields the server sets itself; an owner's copy would make two (and
// libmicrohttpd refuses some of them outright).
bool server_owned(std::string_view name) {
  for (std::string_view own : {"Content-Length", "Transfer-Encoding", "Keep-Alive"})
    if (core_detail::iequals(name, own)) return true;
  return false;
}

MHD_Result queue(MHD_Connection* c, const std::shared_ptr<Exchange>& ex) {
  Exchange::Head head = ex->take_head();
  MHD_Response* response = nullptr;
  if (head.phase == Exchange::Phase::answered) {
    auto* body = new std::string(std::move(head.body));
    response = MHD_create_response_from_buffer_with_free_callback_cls(body->size(), body->data(), release_body, body);
    if (response == nullptr) delete body;
  } else {
    auto* keep = new std::shared_ptr<Exchange>(ex);
    response =
        MHD_create_response_from_callback(MHD_SIZE_UNKNOWN, std::size_t{16} * 1024, read_stream, keep, release_stream);
    if (response == nullptr) delete keep;
    // A stream is never idle: its gaps are the owner's (an event stream's
    // minute between events), not a client's silence.
    else
      MHD_set_connection_option(c, MHD_CONNECTION_OPTION_TIMEOUT, 0u);
  }
  if (response == nullptr) return MHD_NO;
  for (const auto& [name, value] : head.headers)
    if (!server_owned(name)) MHD_add_response_header(response, name.c_str(), value.c_str());  // CR/LF: refused
  const MHD_Result queued = MHD_queue_response(c, static_cast<unsigned>(head.status), response);
  MHD_destroy_response(response);
  return queued;
}

// What has arrived of a streamed body goes to its reader; the connection
// is parked while the reader's buffer is full. An owner that answered early
// is not sent the rest: a little more is read and dropped (so the answer can
// be queued), past that the connection is closed.
MHD_Result stream_upload(MHD_Connection* c, Exchange& ex, const char* upload, size_t* upload_size) {
  BodyReader& reader = *ex.request().body_reader;
  if (reader.abandoned()) {
    ex.dropped += *upload_size;
    *upload_size = 0;
    return ex.dropped > kDropBeforeClose ? MHD_NO : MHD_YES;
  }
  reader.push(
      std::string_view(upload, *upload_size), [c] { MHD_suspend_connection(c); }, [c] { MHD_resume_connection(c); });
  *upload_size = 0;
  return MHD_YES;
}

void dispatch_once(Impl* s, MHD_Connection* c, const std::shared_ptr<Exchange>& ex) {
  if (!ex->first_dispatch()) return;
  ex->set_connection([c] { MHD_suspend_connection(c); }, [c] { MHD_resume_connection(c); });
  s->dispatch(ex);
}

MHD_Result on_request(void* cls, MHD_Connection* c, const char*, const char* method, const char*, const char* upload,
                      size_t* upload_size, void** con_cls) {
  auto* s = static_cast<Impl*>(cls);
  ConnectionState* conn = state_of(c);
  if (conn == nullptr || !conn->current || *con_cls != conn->current.get()) return MHD_NO;
  const std::shared_ptr<Exchange> ex = conn->current;
  try {
    ServeRequest& r = ex->request();
    if (r.method.empty()) {  // the first call: the header block is in
      switch (read_head(s, c, *ex, method)) {
        case Head::buffered: return MHD_YES;
        case Head::streamed: dispatch_once(s, c, ex); return MHD_YES;
        case Head::too_large:
          ex->answer(413, {{"Content-Type", "text/plain"}}, "request body too large\n");
          return queue(c, ex);  // the body is never read; the connection closes after
        case Head::bad_field:
          ex->answer(400, {{"Content-Type", "text/plain"}, {"Connection", "close"}},
                     "a header field holds a NUL byte\n");
          return queue(c, ex);
      }
    }
    if (*upload_size > 0) {
      if (r.body_reader) return stream_upload(c, *ex, upload, upload_size);
      if (r.body.size() + *upload_size > s->options.max_body_bytes) {
        ex->answer(413, {{"Content-Type", "text/plain"}}, "request body too large\n");
        return queue(c, ex);
      }
      r.body.append(upload, *upload_size);
      *upload_size = 0;
      return MHD_YES;
    }
    if (r.body_reader) r.body_reader->finish();
    dispatch_once(s, c, ex);
    if (!ex->ready_or_park()) return MHD_YES;
    return queue(c, ex);
  } catch (...) {  // nothing leaves a libmicrohttpd thread
    return MHD_NO;
  }
}

void on_completed(void* cls, MHD_Connection* c, void** con_cls, MHD_RequestTerminationCode code) {
  auto* s = static_cast<Impl*>(cls);
  ConnectionState* conn = state_of(c);
  if (conn == nullptr || !conn->current || *con_cls != conn->current.get()) return;
  const std::shared_ptr<Exchange> ex = std::move(conn->current);
  *con_cls = nullptr;
  try {
    s->finished(*ex, code != MHD_REQUEST_TERMINATED_COMPLETED_OK);
    s->deadlines->answered(c);
  } catch (...) {  // an access log that fails must not take the server down
  }
}

// Past the maximum and the probes' reserve, a connection is closed as it is
// accepted: libmicrohttpd's own limit would stop accepting instead, and
// leave the excess waiting in the kernel's queue.
MHD_Result on_accept(void* cls, const sockaddr*, socklen_t) {
  const auto* s = static_cast<const Impl*>(cls);
  return s->open.load() < s->options.max_connections + kProbeReserve ? MHD_YES : MHD_NO;
}

void on_error_log(void*, const char*, va_list) {}  // libmicrohttpd's own: no client bytes reach our stderr

}  // namespace

std::optional<std::string> Server::Impl::start_daemon(Listener& listener, std::unique_ptr<Daemon>& out) {
  auto daemon = std::make_unique<Daemon>();
  unsigned flags = MHD_USE_EPOLL_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME | MHD_USE_ERROR_LOG;
  std::vector<MHD_OptionItem> items = {
      // First, so that what libmicrohttpd says about the options after it
      // goes to our logger too, never to stderr.
      {MHD_OPTION_EXTERNAL_LOGGER, reinterpret_cast<intptr_t>(&on_error_log), nullptr},
      {MHD_OPTION_LISTEN_SOCKET, listener.fd, nullptr},
      // Never reached: on_accept closes the excess first (a margin for the
      // connections accepted on several threads at once).
      {MHD_OPTION_CONNECTION_LIMIT, static_cast<intptr_t>(2 * (options.max_connections + kProbeReserve)), nullptr},
      {MHD_OPTION_CONNECTION_TIMEOUT, static_cast<intptr_t>(options.idle_timeout.count()), nullptr},
      {MHD_OPTION_CONNECTION_MEMORY_LIMIT, static_cast<intptr_t>(options.max_header_bytes), nullptr},
      {MHD_OPTION_NOTIFY_CONNECTION, reinterpret_cast<intptr_t>(&on_connection), this},
      {MHD_OPTION_NOTIFY_COMPLETED, reinterpret_cast<intptr_t>(&on_completed), this},
      {MHD_OPTION_URI_LOG_CALLBACK, reinterpret_cast<intptr_t>(&on_target), this},
  };
  // One thread is the daemon's own: a pool of one is refused with a warning.
  if (options.threads > 1)
    items.push_back({MHD_OPTION_THREAD_POOL_SIZE, static_cast<intptr_t>(options.threads), nullptr});
  if (!options.tls_cert_file.empty()) {
    auto pems = read_tls_files();
    if (auto* why = std::get_if<std::string>(&pems)) return *why;
    std::tie(daemon->cert_pem, daemon->key_pem) = std::get<std::pair<std::string, std::string>>(std::move(pems));
    flags |= MHD_USE_TLS;
    items.push_back({MHD_OPTION_HTTPS_MEM_CERT, 0, daemon->cert_pem.data()});
    items.push_back({MHD_OPTION_HTTPS_MEM_KEY, 0, daemon->key_pem.data()});
  }
  items.push_back({MHD_OPTION_END, 0, nullptr});
  daemon->mhd =
      MHD_start_daemon(flags, 0, &on_accept, this, &on_request, this, MHD_OPTION_ARRAY, items.data(), MHD_OPTION_END);
  if (daemon->mhd == nullptr)
    return fmt::format("{}: the HTTP server could not start{}", listener.address.text(),
                       options.tls_cert_file.empty() ? "" : " (is the certificate and key a matching PEM pair?)");
  out = std::move(daemon);
  return std::nullopt;
}

}  // namespace forgemeter::serve
