// says_graphql_rate_limited(): GitHub's GraphQL answers a spent budget with
// `200 {"errors":[{"type":"RATE_LIMITED","message":"API rate limit exceeded
// …"}]}` (the octokit throttling plugin reads it so). The body is a caller's
// and may be huge or hostile: only its first 64 KiB are looked at, a plain
// search for the word comes first (most answers stop there), and the walk
// that follows is a bounded tokenizer, never a parse into values: it tracks
// only the containers' kinds (to 32 deep) and the keys on the path
// `errors[].type`, and gives up on what is not JSON.
#include <string_view>

#include "meter/reading.h"

namespace forgemeter::meter {

namespace {

constexpr std::size_t kRead = std::size_t{64} * 1024;
constexpr int kDeepest = 32;
constexpr std::string_view kWord = "RATE_LIMITED";

// The JSON string whose opening quote is at t[i]: its raw text (escapes not
// undone: the names looked for have none), and where it ends. False when it
// is not closed within t.
bool string_at(std::string_view t, std::size_t& i, std::string_view& text) noexcept {
  const std::size_t open = i;
  for (++i; i < t.size(); ++i) {
    if (t[i] == '\\') {
      ++i;
    } else if (t[i] == '"') {
      text = t.substr(open + 1, i - open - 1);
      return true;
    }
  }
  return false;
}

// The walk: depth 1 is the answer's object, 2 its `errors` array, 3 one error.
class ErrorsWalk {
 public:
  bool found(std::string_view t) noexcept {
    for (std::size_t i = 0; i < t.size(); ++i) {
      switch (t[i]) {
        case '{':
        case '[':
          if (!open(t[i] == '{')) return false;
          break;
        case '}':
        case ']':
          if (depth_ == 0) return false;
          if (depth_ == 2) in_errors_ = false;
          --depth_;
          expect_key_ = false;
          break;
        case ':': expect_key_ = false; break;
        case ',': expect_key_ = depth_ > 0 && object_[depth_ - 1]; break;
        case '"': {
          std::string_view text;
          if (!string_at(t, i, text)) return false;
          if (depth_ > 0 && object_[depth_ - 1] && expect_key_) {
            key(text);
          } else if (depth_ == 3 && in_errors_ && type_key_ && text == kWord) {
            return true;
          }
          break;
        }
        default: break;  // spaces, numbers, literals
      }
    }
    return false;
  }

 private:
  bool open(bool object) noexcept {
    if (depth_ == kDeepest) return false;
    if (depth_ == 1 && !object && object_[0] && errors_key_) in_errors_ = true;
    object_[depth_++] = object;
    expect_key_ = object;
    return true;
  }
  void key(std::string_view name) noexcept {
    if (depth_ == 1) errors_key_ = name == "errors";
    if (depth_ == 3) type_key_ = name == "type";
  }

  bool object_[kDeepest] = {};
  int depth_ = 0;
  bool expect_key_ = false, errors_key_ = false, in_errors_ = false, type_key_ = false;
};

}  // namespace

bool says_graphql_rate_limited(std::string_view body) noexcept {
  body = body.substr(0, kRead);
  if (body.find(kWord) == std::string_view::npos) return false;  // an empty body has no data() to search
  return ErrorsWalk().found(body);
}

}  // namespace forgemeter::meter
