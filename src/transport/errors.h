// errors.h — libcurl's result codes in the transport's own terms.
#pragma once

#include <curl/curl.h>

#include <string>

#include "core/terminal_text.h"
#include "forgemeter/transport.h"

namespace forgemeter::transport_detail {

TransportErrc classify(CURLcode rc) noexcept;

// Failures that happen before libcurl sends the request (resolve, connect,
// TLS, a timeout there): still one attempt, with no answer.
bool fails_before_sending(CURLcode rc) noexcept;

// "<what libcurl said> (libcurl error <n>: <curl_easy_strerror>)", one line;
// the description once, when libcurl's text already holds it.
std::string curl_message(CURLcode rc, const char* error_buffer);

// A caller's, a forge's or libcurl's text in an error message: core's rule.
using core_detail::terminal_text;

}  // namespace forgemeter::transport_detail
