#include "transport/errors.h"

#include <string_view>

#include "core/ascii.h"

namespace forgemeter::transport_detail {

TransportErrc classify(CURLcode rc) noexcept {
  switch (rc) {
    case CURLE_OK: return TransportErrc::ok;
    // Schemes are checked before sending: libcurl's "unsupported protocol"
    // is an answer that is not HTTP/1 or 2 (HTTP/0.9), so `other` (curl's 1).
    case CURLE_URL_MALFORMAT: return TransportErrc::invalid_request;
    case CURLE_COULDNT_RESOLVE_PROXY:
    case CURLE_COULDNT_RESOLVE_HOST: return TransportErrc::resolve_failed;
    case CURLE_COULDNT_CONNECT: return TransportErrc::connect_failed;
    case CURLE_OPERATION_TIMEDOUT: return TransportErrc::timeout;
    case CURLE_SSL_CONNECT_ERROR:
    case CURLE_PEER_FAILED_VERIFICATION:
    case CURLE_SSL_CERTPROBLEM:
    case CURLE_SSL_CIPHER:
    case CURLE_SSL_CACERT_BADFILE:
    case CURLE_SSL_ISSUER_ERROR:
    case CURLE_SSL_PINNEDPUBKEYNOTMATCH:
    case CURLE_SSL_INVALIDCERTSTATUS:
    case CURLE_SSL_CRL_BADFILE:
    case CURLE_SSL_ENGINE_INITFAILED:
    case CURLE_SSL_ENGINE_NOTFOUND:
    case CURLE_SSL_ENGINE_SETFAILED:
    case CURLE_SSL_CLIENTCERT: return TransportErrc::tls_failed;
    case CURLE_GOT_NOTHING:
    case CURLE_SEND_ERROR:
    case CURLE_RECV_ERROR:
    case CURLE_PARTIAL_FILE:
    case CURLE_SEND_FAIL_REWIND:  // a reused connection died mid-upload: a source's bytes cannot be sent again
    case CURLE_HTTP2:
    case CURLE_HTTP2_STREAM: return TransportErrc::connection_dropped;
    case CURLE_ABORTED_BY_CALLBACK: return TransportErrc::cancelled;
    default: return TransportErrc::other;
  }
}

bool fails_before_sending(CURLcode rc) noexcept {
  switch (classify(rc)) {
    case TransportErrc::resolve_failed:
    case TransportErrc::connect_failed:
    case TransportErrc::tls_failed:
    case TransportErrc::timeout: return true;
    default: return false;
  }
}

std::string curl_message(CURLcode rc, const char* error_buffer) {
  const std::string detail = error_buffer ? terminal_text(core_detail::trimmed(error_buffer, true)) : std::string();
  const std::string number = "libcurl error " + std::to_string(static_cast<int>(rc));
  const std::string_view said = curl_easy_strerror(rc);
  // libcurl says "Out of memory" for a header field past its 100 KiB bound,
  // by far the likelier cause of the two.
  if (rc == CURLE_OUT_OF_MEMORY && detail.empty())
    return "header too large: a header field of the answer passed libcurl's 100 KiB bound, or memory ran out (" +
           number + ": " + std::string(said) + ")";
  if (detail.empty()) return number + ": " + std::string(said);
  // libcurl's own text often ends with the code's description already: not twice.
  if (detail.find(said) != std::string::npos) return detail + " (" + number + ")";
  return detail + " (" + number + ": " + std::string(said) + ")";
}

}  // namespace forgemeter::transport_detail
