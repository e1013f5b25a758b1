// `forgemeter fetch --etag-save FILE` / `--etag-compare FILE`, as curl's, as a
// process against the loopback forge: what is sent, what is saved, what a
// 304 costs, and hostile ETags (the forge's and the file's) never passed on raw.
#include <doctest/doctest.h>

#include "canned_answer.h"
#include "signed_fetch.h"

using namespace forgemeter;
using namespace fmtest;

namespace {

const std::string kPath = "/repos/o/r/pulls/7";

struct Rig : SignedFetch {
  std::string etag = dir.file("etag");

  std::string url(const std::string& path = kPath) const { return SignedFetch::url(path); }
  // The If-None-Match the forge received last ("(none)" when absent).
  std::string last_condition() {
    const auto kept = forge.truth().requests();
    if (kept.empty() || !kept.back().has_header("If-None-Match")) return "(none)";
    return kept.back().header("If-None-Match");
  }
  std::string tag() const { return forge.etag(kPath, "Bearer inst-7"); }
};

bool has_control_byte(const std::string& s) {
  for (char c : s)
    if ((static_cast<unsigned char>(c) < 0x20 && c != '\n') || c == 0x7f) return true;
  return false;
}

}  // namespace

TEST_CASE("fetch --etag-save writes the answer's ETag; --etag-compare sends it and a 304 costs nothing") {
  Rig rig;
  auto first = rig.fetch({"--etag-save", rig.etag, rig.url()});
  INFO(first.err);
  REQUIRE(first.exit_code == 0);
  CHECK(read_file(rig.etag) == rig.tag() + "\n");
  CHECK(rig.last_condition() == "(none)");

  auto again = rig.fetch({"--etag-compare", rig.etag, "-w", "%{http_code}", rig.url()});
  INFO(again.err);
  CHECK(again.exit_code == 0);
  CHECK(again.out == "304");  // no body
  CHECK(rig.last_condition() == rig.tag());
  CHECK(rig.charged() == 1);  // only the first
  const auto by = rig.forge.truth().conditionals_by_host_and_lane();
  CHECK(by.at({rig.host(), ""}) == testforge::Conditionals{.sent = 1, .not_modified = 1});
}

TEST_CASE("fetch --etag-compare F --etag-save F: a missing file sends \"\", a 304 keeps it, a change replaces it") {
  Rig rig;
  auto first = rig.fetch({"--etag-compare", rig.etag, "--etag-save", rig.etag, rig.url()});
  CHECK(first.exit_code == 0);
  CHECK(first.err.find("warning: cannot read --etag-compare file") != std::string::npos);  // curl warns too
  CHECK(rig.last_condition() == "\"\"");
  CHECK(read_file(rig.etag) == rig.tag() + "\n");

  const std::string body = rig.dir.file("body.json");
  auto kept = rig.fetch({"-o", body, rig.url()});
  REQUIRE(kept.exit_code == 0);
  const std::string first_body = read_file(body);
  REQUIRE_FALSE(first_body.empty());
  auto same =
      rig.fetch({"--etag-compare", rig.etag, "--etag-save", rig.etag, "-o", body, "-w", "%{http_code}", rig.url()});
  CHECK(same.out == "304");
  CHECK(read_file(rig.etag) == rig.tag() + "\n");
  CHECK(read_file(body) == first_body);  // a 304 leaves -o's file as it was, as curl

  const std::string old_tag = rig.tag();
  rig.forge.bump(kPath);
  auto changed = rig.fetch({"--etag-compare", rig.etag, "--etag-save", rig.etag, rig.url()});
  CHECK(changed.exit_code == 0);
  CHECK(changed.out.find(R"("version":1)") != std::string::npos);
  CHECK(rig.last_condition() == old_tag);
  CHECK(rig.tag() != old_tag);
  CHECK(read_file(rig.etag) == rig.tag() + "\n");
}

TEST_CASE("fetch --etag-compare: an empty file sends \"\"; the first line only, blanks and CR trimmed") {
  Rig rig;
  write_file(rig.etag, "");
  CHECK(rig.fetch({"--etag-compare", rig.etag, rig.url()}).exit_code == 0);
  CHECK(rig.last_condition() == "\"\"");
  write_file(rig.etag, "  W/\"abc\" \r\nsecond line\n");
  auto r = rig.fetch({"--etag-compare", rig.etag, rig.url()});
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning") == std::string::npos);
  CHECK(rig.last_condition() == "W/\"abc\"");
}

TEST_CASE("fetch --etag-save: an answer without an ETag, or a 4xx, leaves the file as it was") {
  Rig rig;
  write_file(rig.etag, "\"kept\"\n");
  CHECK(rig.fetch({"--etag-save", rig.etag, rig.url("/echo")}).exit_code == 0);
  CHECK(read_file(rig.etag) == "\"kept\"\n");
  CHECK(rig.fetch({"--etag-save", rig.etag, rig.url("/status/404")}).exit_code == 0);
  CHECK(read_file(rig.etag) == "\"kept\"\n");
  // A new file is created even so (curl's order: before anything is sent).
  const std::string fresh = rig.dir.file("fresh");
  CHECK(rig.fetch({"--etag-save", fresh, rig.url("/echo")}).exit_code == 0);
  CHECK(read_file(fresh).empty());
  // -: stdout, before the body.
  auto out = rig.fetch({"--etag-save", "-", rig.url()});
  CHECK(out.out.starts_with(rig.tag() + "\n{"));
}

TEST_CASE("fetch --etag-save: hostile ETags from the forge are never written raw") {
  Rig rig;
  for (const char* kind : {"cr", "control", "unquoted", "huge"}) {
    CAPTURE(kind);
    write_file(rig.etag, "\"kept\"\n");
    auto r = rig.fetch({"--etag-save", rig.etag, rig.url(std::string("/hostile/etag?kind=") + kind)});
    CHECK(read_file(rig.etag) == "\"kept\"\n");
    CHECK_FALSE(has_control_byte(r.err));
    // 1 MiB: libcurl refuses the header (exit 1); the others are answers with a warning.
    CHECK(r.exit_code == (std::string(kind) == "huge" ? 1 : 0));
    if (r.exit_code == 0) CHECK(r.err.find("is not an entity-tag") != std::string::npos);
    CHECK(r.err.size() < 4000);  // 1 MiB is never echoed
  }
  // CRLF ends the header on the wire: the ETag is what came before it, the rest another field.
  auto split = rig.fetch({"--etag-save", rig.etag, rig.url("/hostile/etag?kind=crlf")});
  CHECK(split.exit_code == 0);
  CHECK(read_file(rig.etag) == "\"a\"\n");
}

TEST_CASE("fetch --etag-save: a NUL in the ETag (a server no library would write) is never saved") {
  Rig rig;
  write_file(rig.etag, "\"kept\"\n");
  const std::string nul("ETag: \"a\0b\"\r\n", 12);
  CannedAnswer server("HTTP/1.1 200 OK\r\n" + nul + "Content-Length: 2\r\nConnection: close\r\n\r\nok");
  auto r = rig.fetch({"--etag-save", rig.etag, server.url("/nul")});
  // libcurl refuses the answer (7.88: exit 1, no answer); were it passed on, the ETag is refused.
  CHECK((r.exit_code == 1 || r.err.find("is not an entity-tag") != std::string::npos));
  CHECK(read_file(rig.etag) == "\"kept\"\n");
  CHECK(r.err.find('\0') == std::string::npos);
  CHECK_FALSE(has_control_byte(r.err));
}

TEST_CASE("fetch --etag-compare: a file whose line is no ETag is refused, nothing sent") {
  Rig rig;
  for (const std::string& bad : {std::string("\"a\x1b[31m\"\n"), std::string("\"a\0b\"", 5), std::string("abc"),
                                 "\"" + std::string(1 << 20, 'a') + "\""}) {
    write_file(rig.etag, bad);
    auto r = rig.fetch({"--etag-compare", rig.etag, rig.url()});
    CHECK(r.exit_code == 2);
    CHECK(r.err.find("is not an ETag") != std::string::npos);
    CHECK_FALSE(has_control_byte(r.err));
    CHECK(r.err.size() < 4000);
  }
  CHECK(rig.forge.truth().total() == 0);
}

TEST_CASE("fetch --etag-*: one URL, as curl's; a file that cannot be created is exit 23, nothing sent") {
  Rig rig;
  CHECK(rig.fetch({"--etag-save", rig.etag, rig.url(), rig.url()}).exit_code == 2);
  CHECK(rig.fetch({"--etag-compare", rig.etag, "--summary", rig.url()}).exit_code == 2);
  auto r = rig.fetch({"--etag-save", rig.dir.file("no/such/dir/etag"), rig.url()});
  CHECK(r.exit_code == 23);
  CHECK(r.err.find("cannot create the --etag-save file") != std::string::npos);
  CHECK(rig.forge.truth().total() == 0);
}
