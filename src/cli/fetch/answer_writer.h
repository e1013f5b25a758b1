// answer_writer.h — one URL's answer as `forgemeter fetch` writes it when it
// writes answers (not --summary): -D's header block, --etag-save, -i's head
// and the body to stdout or -o, the error line, -w's text after it.
//
// The body is streamed: take() is the Request's on_body, so the answer goes
// out as it arrives and memory stays flat whatever its length. The answer's
// head is known at its first piece (the Transport hands over only the final
// answer's body): -D and --etag-save are written then, and -f with a status
// of 400 or more drops the body (it is still read: the answer is counted).
// An answer without a body is written at finish(), as before: a 304 leaves
// -o's file untouched (never created nor truncated). Once an output fails,
// take() refuses: the transfer ends, and finish() says 23.
//
// Thread-safety: one per URL, used by the thread performing its request
// (take) and then the one writing its end (finish), one after the other.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "cli/fetch/etag.h"
#include "cli/fetch/output.h"
#include "forgemeter/transport.h"

namespace forgemeter::cli {

// What the curl-like run writes to: -o (or stdout), -D, -w's format.
struct CurlOutputs {
  AnswerOut answer, header;
  const std::optional<WriteOut>& write_out;
  EtagSave* etag_save;  // --etag-save, or nullptr
};

struct AnswerFlags {
  bool include = false, verbose = false, fail = false, fail_with_body = false;  // -i -v -f --fail-with-body
  std::string output, dump_header;                                              // -o ("" or "-": stdout), -D ("": none)
  std::function<void(const std::string&)> complain;                             // an error line for stderr (unless -s)
};

class AnswerWriter {
 public:
  AnswerWriter(const AnswerFlags& flags, CurlOutputs& out) : flags_(flags), out_(out) {}

  // Request::on_body: false once an output took no more.
  bool take(const BodyChunk& piece);
  // After the request: what is left to write. Its exit code; `unwritten`
  // when an output took no more.
  int finish(const Fetched& fetched, bool& unwritten);

 private:
  void head(const Response& res);  // -D and --etag-save
  void cannot_write(Fetched& f, const std::string& path);

  const AnswerFlags& flags_;
  CurlOutputs& out_;
  bool streamed_ = false;  // a body piece came: the head is written
  bool body_out_ = false;  // the streamed body is written (not dropped by -f)
  bool etag_unwritten_ = false;
  const std::string* failed_ = nullptr;  // the output that failed
  std::uint64_t bytes_ = 0;              // streamed
};

}  // namespace forgemeter::cli
