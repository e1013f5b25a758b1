// errors.h — libcurl's result codes in the transport's own terms.
#pragma once

#include <curl/curl.h>

#include <string>

#include "forgemeter/transport.h"

namespace forgemeter::transport_detail {

TransportErrc classify(CURLcode rc) noexcept;

// Failures that happen before libcurl sends the request (resolve, connect,
// TLS, a timeout there): still one attempt, with no answer.
bool fails_before_sending(CURLcode rc) noexcept;

// "<what libcurl said> (libcurl error <n>: <curl_easy_strerror>)", one line;
// the description once, when libcurl's text already holds it.
std::string curl_message(CURLcode rc, const char* error_buffer);

// Makes `s` safe for one line of text: control bytes become '?'.
std::string one_line(std::string_view s);

}  // namespace forgemeter::transport_detail
