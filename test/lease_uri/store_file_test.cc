// Where a lease command finds its store, and which texts are stores at all
// (src/lease/uri/store_file.h, open_store.h): the refusals say what to do
// and never echo a password.
#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <fstream>
#include <string>

#include "core/components.h"
#include "lease/uri/open_store.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_error.h"
#include "lease/uri/store_file.h"

namespace {

using forgemeter::lease_uri::check_store_kind;
using forgemeter::lease_uri::resolve_store;
using forgemeter::lease_uri::StoreError;
using forgemeter::lease_uri::StoreSource;
using Kind = StoreError::Kind;

// A file of this test's own, removed at the end.
struct StoreFile {
  std::string path = "/tmp/fm_store_file_test." + std::to_string(::getpid());
  StoreFile(const std::string& text, mode_t mode) {
    std::ofstream(path) << text;
    ::chmod(path.c_str(), mode);
  }
  ~StoreFile() { ::unlink(path.c_str()); }
};

// The StoreError `f` throws (kind and message); fails the test when none.
template <class F>
std::pair<Kind, std::string> refusal(F f) {
  try {
    f();
  } catch (const StoreError& e) {
    return {e.kind, e.what()};
  }
  FAIL("no StoreError");
  return {};
}

}  // namespace

TEST_CASE("--store-file: the first line, trimmed; a file open to others is refused with the fix") {
  ::unsetenv("FORGEMETER_STORE");
  {
    StoreFile f("  host=h password=file-pw-1234  \nsecond line\n", 0600);
    CHECK(resolve_store(StoreSource{.store_file = f.path}) == "host=h password=file-pw-1234");
    CHECK(forgemeter::lease_uri::scrub("file-pw-1234") == "***");  // remembered
  }
  {
    StoreFile f("host=h\n", 0644);
    const auto [kind, what] = refusal([&] { resolve_store(StoreSource{.store_file = f.path}); });
    CHECK(kind == Kind::refused);
    CHECK(what.find("permissions 0644 are too open") != std::string::npos);
    CHECK(what.find("chmod 600 " + f.path) != std::string::npos);
  }
  {
    StoreFile f("\n", 0600);
    CHECK(refusal([&] { resolve_store(StoreSource{.store_file = f.path}); }).first == Kind::refused);
  }
  CHECK(refusal([] { resolve_store(StoreSource{.store_file = "/nonexistent/fm"}); }).first == Kind::refused);
}

TEST_CASE("--store-file on a directory or a device says what it is, not which mode to give it") {
  for (const auto& [path, kind] : {std::pair<std::string, std::string>{"/tmp", "a directory"},
                                   std::pair<std::string, std::string>{"/dev/null", "a character device"}}) {
    CAPTURE(path);
    const auto [refused, what] = refusal([&] { resolve_store(StoreSource{.store_file = path}); });
    CHECK(refused == Kind::refused);
    CHECK(what.find("--store-file " + path + ": it is " + kind + ", not a file") != std::string::npos);
    CHECK(what.find("chmod") == std::string::npos);
  }
}

TEST_CASE("--store first, then --store-file, then FORGEMETER_STORE; none is a usage error") {
  ::setenv("FORGEMETER_STORE", " memory: ", 1);
  CHECK(resolve_store(StoreSource{}) == "memory:");
  CHECK(resolve_store(StoreSource{.store = "host=h"}) == "host=h");
  ::unsetenv("FORGEMETER_STORE");
  const auto [kind, what] = refusal([] { resolve_store(StoreSource{}); });
  CHECK(kind == Kind::not_given);
  CHECK(what.find("FORGEMETER_STORE") != std::string::npos);
}

// `store` is refused as not given, saying `why`, without its password.
static void check_refused_unechoed(const std::string& store, const std::string& why) {
  const auto [kind, what] = refusal([&] { check_store_kind(store); });
  CHECK(kind == Kind::not_given);
  CHECK(what.find(why) != std::string::npos);
  CHECK(what.find("Hidden-pw") == std::string::npos);
}

TEST_CASE("a text that is no store is a usage error that does not echo it") {
  CHECK_NOTHROW(check_store_kind("memory:"));
  if (FORGEMETER_HAS_POSTGRES) {
    CHECK_NOTHROW(check_store_kind("host=h dbname=d"));
    CHECK_NOTHROW(check_store_kind("postgresql://u@h/d"));
  } else {
    check_refused_unechoed("postgresql://u:Hidden-pw@h/d", "built without PostgreSQL support");
  }
  if (FORGEMETER_HAS_ETCD)
    CHECK_NOTHROW(check_store_kind("etcds://h:2379/p"));
  else
    check_refused_unechoed("etcds://root:Hidden-pw@h:2379/p", "built without etcd support");
  check_refused_unechoed("mysql://u:Hidden-pw@h/d", "'mysql://…' is not a store");
  const auto pasted = refusal([] { check_store_kind("Hunter2-pasted"); });
  CHECK(pasted.second.find("Hunter2") == std::string::npos);
}
