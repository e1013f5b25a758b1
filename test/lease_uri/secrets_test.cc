// scrub(): the store forms' passwords masked, remembered secrets masked only
// where the masking cannot give them away (src/lease/uri/secrets.h). libpq's
// own messages come from libpq itself (store_misconfiguration() parses with
// it; no server is needed for a text it rejects).
#include <doctest/doctest.h>

#include <algorithm>
#include <chrono>
#include <string>
#include <vector>

#include "core/components.h"
#include "lease/uri/passwords.h"
#include "lease/uri/secrets.h"
#include "lease/uri/store_check.h"

namespace {

using forgemeter::lease_uri::forget_secrets;
using forgemeter::lease_uri::remember_secrets;
using forgemeter::lease_uri::scrub;
using forgemeter::lease_uri::store_misconfiguration;
using forgemeter::lease_uri::store_passwords;

// Each case starts with nothing remembered (the secrets are process-wide).
struct Fresh {
  Fresh() { forget_secrets(); }
  ~Fresh() { forget_secrets(); }
};

bool has(const std::string& text, const std::string& what) { return text.find(what) != std::string::npos; }

#if FORGEMETER_HAS_POSTGRES
std::string libpq_says(const std::string& store) {
  remember_secrets(store);
  return store_misconfiguration(store, std::chrono::milliseconds(100));
}
#endif

}  // namespace

TEST_CASE_FIXTURE(Fresh, "a one-character password neither shows nor is given away by the masking around it") {
  remember_secrets("host=db.example password=e dbname=forgemeter");
  CHECK(scrub("forgemeter: lease \"sweeper\": term 3: elected") == "forgemeter: lease \"sweeper\": term 3: elected");
  CHECK(scrub("host=db.example password=e dbname=forgemeter") == "host=db.example password=*** dbname=forgemeter");
  CHECK(scrub("a e b") == "a e b");  // free text: `a *** b` would say what *** is
}

TEST_CASE_FIXTURE(Fresh, "a password inside a longer word is left alone; as a whole word it is masked when long") {
  remember_secrets("password=meter");
  CHECK(scrub("forgemeter meters") == "forgemeter meters");
  CHECK(scrub("meter") == "meter");  // short: only as a store form or a quoted fragment
  CHECK(scrub("option \"meter\"") == "option \"***\"");
  remember_secrets("password=Pw-7f3a9c-secret");
  CHECK(scrub("not expected: Pw-7f3a9c-secret.") == "not expected: ***.");
  CHECK(scrub("not expected: Pw-7f3a9c-secrets") == "not expected: Pw-7f3a9c-secrets");  // another word
}

TEST_CASE_FIXTURE(Fresh, "store forms are masked whatever the length, remembered or not") {
  CHECK(scrub("host=h password=x user=u") == "host=h password=*** user=u");
  CHECK(scrub("host=h password = 'a b\\' c' user=u") == "host=h password = '***' user=u");
  CHECK(scrub("host=h password= x user=u") == "host=h password= *** user=u");  // libpq reads x
  CHECK(scrub("postgresql://fm:p@h/db") == "postgresql://fm:***@h/db");
  CHECK(scrub("postgresql://fm:p@ss/w@h:5432/db?sslmode=disable") == "postgresql://fm:***@h:5432/db?sslmode=disable");
  CHECK(scrub("postgresql://fm@h/db?sslmode=disable&password=x&application_name=a") ==
        "postgresql://fm@h/db?sslmode=disable&password=***&application_name=a");
  CHECK(scrub("etcds://root:e@127.0.0.1:2379,127.0.0.2:2379/app") ==
        "etcds://root:***@127.0.0.1:2379,127.0.0.2:2379/app");
  // Not forms: no password given, or a word that only ends in "password".
  CHECK(scrub("postgresql://fm@h:5432/db") == "postgresql://fm@h:5432/db");
  CHECK(scrub("newpassword=x; see https://h:443/a") == "newpassword=x; see https://h:443/a");
  CHECK(scrub("password authentication failed for user \"fm\"") == "password authentication failed for user \"fm\"");
}

TEST_CASE_FIXTURE(Fresh, "quoted conninfo values: the value libpq reads and its raw spelling are both secrets") {
  const std::string store = "host=h user=u password='it\\'s quoted' dbname=d";
  const auto found = store_passwords("host=h password='a b\\'c'");
  CHECK(found == std::vector<std::string>{"a b'c", "a b\\'c"});
  remember_secrets(store);
  CHECK_FALSE(has(scrub(store), "quoted"));
}

TEST_CASE_FIXTURE(Fresh, "URI-escaped passwords: the escaped and the decoded spelling are secrets") {
  const std::string store = "postgresql://fm:s3cr%40t%2Fpw@127.0.0.1:1/postgres";
  const auto found = store_passwords(store);
  CHECK(std::find(found.begin(), found.end(), "s3cr@t/pw") != found.end());
  CHECK(std::find(found.begin(), found.end(), "s3cr%40t%2Fpw") != found.end());
  remember_secrets(store);
  CHECK(scrub(store) == "postgresql://fm:***@127.0.0.1:1/postgres");
  CHECK(scrub("auth \"s3cr@t/pw\" refused") == "auth \"***\" refused");
  CHECK(scrub("auth s3cr@t/pw refused") == "auth *** refused");
}

#if FORGEMETER_HAS_POSTGRES  // libpq itself parses the store
TEST_CASE_FIXTURE(Fresh, "libpq's error quoting a fragment of a store it rejects shows no part of the password") {
  SUBCASE("a one-character second half of an unquoted password with a space") {
    const std::string why = libpq_says("host=127.0.0.1 port=1 password=ab c");
    CHECK(has(why, "missing \"=\" after \"***\""));
    CHECK_FALSE(has(why, "\"c\""));
  }
  SUBCASE("a word after password= that is no keyword of libpq's") {
    const std::string why = libpq_says("host=127.0.0.1 port=1 password=Pw-7f3a9c colour=blue");
    CHECK(has(why, "invalid connection option \"***\""));
    CHECK_FALSE(has(why, "Pw-7f3a9c"));
  }
  SUBCASE("an unknown keyword before password= is named: it is no secret") {
    const std::string why = libpq_says("host=127.0.0.1 port=1 colour=blue password=Pw-7f3a9c");
    CHECK(has(why, "invalid connection option \"colour\""));
  }
  SUBCASE("a broken percent escape in a URI's password: libpq quotes the token") {
    const std::string why = libpq_says("postgresql://fm:Pa%zzword@127.0.0.1:1/postgres");
    CHECK(has(why, "invalid percent-encoded token: \"***\""));
    CHECK_FALSE(has(why, "zz"));
  }
  SUBCASE("a short broken password in a URI") {
    const std::string why = libpq_says("postgresql://fm:%z@127.0.0.1:1/postgres");
    CHECK(has(why, "invalid percent-encoded token: \"***\""));
  }
}
#endif

TEST_CASE_FIXTURE(Fresh, "text without a store form or a remembered secret is unchanged") {
  remember_secrets("host=h port=5432 dbname=forgemeter");  // no password
  CHECK(store_passwords("host=h port=5432 dbname=forgemeter").empty());
  const std::string line = "forgemeter: lease \"a\": term 7: started sleep (pid 42) at host=h port=5432";
  CHECK(scrub(line) == line);
}
