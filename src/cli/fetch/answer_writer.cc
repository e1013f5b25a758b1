#include "cli/fetch/answer_writer.h"

#include <fmt/format.h>

#include "cli/errors.h"
#include "cli/fetch/exit.h"
#include "cli/fetch/verbose.h"
#include "core/terminal_text.h"

namespace forgemeter::cli {
namespace {

const std::string kStdout = "-";

// The name of an output in a message: stdout, or the file's.
std::string output_name(const std::string& path) { return path.empty() || path == "-" ? "stdout" : "'" + path + "'"; }

}  // namespace

void AnswerWriter::head(const Response& res) {
  if (!flags_.dump_header.empty() && answered(res) && !out_.header.write(res.headers.raw()))
    failed_ = &flags_.dump_header;
  // Saved before the body, as curl saves it from the header.
  if (out_.etag_save != nullptr)
    if (const std::string line = out_.etag_save->save(res, etag_unwritten_); !line.empty()) flags_.complain(line);
}

bool AnswerWriter::take(const BodyChunk& piece) {
  if (!streamed_) {
    streamed_ = true;
    Response res;  // the answer's head
    res.status = piece.status;
    if (piece.headers != nullptr) res.headers = *piece.headers;
    head(res);
    body_out_ = failed_ == nullptr && !(flags_.fail && piece.status >= 400);
    if (body_out_ && flags_.include && !out_.answer.write(res.headers.raw())) failed_ = &flags_.output;
  }
  bytes_ += piece.bytes.size();
  if (failed_ != nullptr) return false;
  if (body_out_ && !out_.answer.write(piece.bytes)) {
    failed_ = &flags_.output;
    return false;
  }
  return true;
}

void AnswerWriter::cannot_write(Fetched& f, const std::string& path) {
  failed_ = &path;
  f.exit_code = kExitWriteError;
  flags_.complain(core_detail::terminal_text(
      fmt::format("forgemeter: ({}) cannot write the answer to {}", kExitWriteError, output_name(path))));
}

int AnswerWriter::finish(const Fetched& fetched, bool& unwritten) {
  const Response& res = fetched.res;
  Fetched f = fetched;
  f.streamed = bytes_;
  if (flags_.verbose) write_all(stderr, verbose_text(f.req, res));
  if (!streamed_) head(res);
  // The transfer this writer ended is said as the output that failed.
  const bool ours = failed_ != nullptr && res.error.code == TransportErrc::sink_refused;
  if (f.exit_code != kExitOk && !ours) flags_.complain(fetch_error_line(f.req, res, f.exit_code));
  if (failed_ != nullptr) cannot_write(f, *failed_);
  const bool body = f.exit_code == kExitOk || (f.exit_code == kExitHttpError && flags_.fail_with_body);
  if (!streamed_ && failed_ == nullptr && body && !out_.answer.write(res, flags_.include))
    cannot_write(f, flags_.output);
  if (etag_unwritten_ && f.exit_code == kExitOk) f.exit_code = kExitWriteError;
  // -w after a failed output too (its %{exitcode} then says 23), as curl.
  if (out_.write_out && !write_all(stdout, out_.write_out->expand(f)) && failed_ == nullptr) cannot_write(f, kStdout);
  unwritten = failed_ != nullptr;
  return f.exit_code;
}

}  // namespace forgemeter::cli
