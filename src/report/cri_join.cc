#include "report/cri_join.h"

#include "report/log_record.h"

namespace forgemeter::report {

void CriJoin::close(Join& j) noexcept {
  j.open = false;
  j.seen = 0;
  joining_ = joins_[0].open || joins_[1].open;
}

CriJoin::Offer CriJoin::offer(std::string_view line, bool may_start) {
  Offer o;
  const auto rec = cri_record(line);
  for (std::size_t s = 0; s < joins_.size(); ++s) {  // the input between pieces counts to the limit
    Join& j = joins_[s];
    if (!j.open || (rec && rec->stderr_stream == (s == 1))) continue;
    j.seen += line.size() + 1;
    if (j.seen > max_line_) {
      close(j);
      ++o.given_up;
    }
  }
  if (!rec) return o;
  Join& j = joins_[rec->stderr_stream ? 1 : 0];
  if (!j.open) {
    if (!rec->partial || !may_start) return o;
    j.open = joining_ = true;
    j.text.assign(line);
    j.text[rec->flag] = 'F';
    j.seen = line.size() + 1;
    o.step = Step::held;
    return o;
  }
  o.step = Step::held;
  j.seen += line.size() + 1;
  if (j.seen > max_line_) {
    close(j);
    ++o.given_up;
    return o;
  }
  j.text.append(line.substr(rec->text));
  if (rec->partial) return o;
  text_.swap(j.text);
  close(j);
  o.step = Step::joined;
  return o;
}

int CriJoin::end() noexcept {
  int open = 0;
  for (Join& j : joins_)
    if (j.open) {
      close(j);
      ++open;
    }
  return open;
}

}  // namespace forgemeter::report
