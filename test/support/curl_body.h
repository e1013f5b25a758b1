// curl_body.h — the write callback of the support code's own curl requests
// (to etcd's gateway, to Prometheus' API): the answer's bytes appended to
// the std::string given as CURLOPT_WRITEDATA.
#pragma once

#include <cstddef>
#include <string>

namespace fmtest {

inline std::size_t append_body(char* data, std::size_t size, std::size_t n, void* body) {
  static_cast<std::string*>(body)->append(data, size * n);
  return size * n;
}

}  // namespace fmtest
