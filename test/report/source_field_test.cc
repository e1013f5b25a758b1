// --source-field's reading of a JSON log record (json_string_field): the
// top-level key only, whatever precedes the object or nests inside it.
#include <doctest/doctest.h>

#include "report/scanner.h"

using forgemeter::report::json_string_field;

TEST_CASE("source field: the top-level key wins over a nested one that comes first") {
  CHECK(json_string_field(R"({"k8s":{"pod":"inner"},"pod":"web-1","msg":"x"})", "pod") == "web-1");
  CHECK(json_string_field(R"({"k8s":{"pod":"inner"},"msg":"x"})", "pod") == std::nullopt);
  CHECK(json_string_field(R"({"msg":"the \"pod\": \"fake\" in a message"})", "pod") == std::nullopt);
}

TEST_CASE("source field: a prefix before the object is skipped (kubectl logs --prefix)") {
  CHECK(json_string_field(R"([pod/web-2/app] {"pod":"web-2","msg":"x"})", "pod") == "web-2");
}

TEST_CASE("source field: escapes decode as JSON says, surrogate pairs included") {
  CHECK(json_string_field(R"({"pod":"a\u00e9\ud83d\ude00\n\"b"})", "pod") == "a\xc3\xa9\xf0\x9f\x98\x80\n\"b");
}

TEST_CASE("source field: no value unless the record is an object with a string there") {
  CHECK(json_string_field(R"({"pod":7})", "pod") == std::nullopt);
  CHECK(json_string_field(R"({"pod":null})", "pod") == std::nullopt);
  CHECK(json_string_field(R"({"pod":"web-1")", "pod") == std::nullopt);  // truncated
  CHECK(json_string_field(R"({"pod":"\u12"})", "pod") == std::nullopt);  // a bad escape
  CHECK(json_string_field("plain text pod web-1", "pod") == std::nullopt);
  CHECK(json_string_field(R"(["pod","web-1"])", "pod") == std::nullopt);
}

TEST_CASE("source field: a dotted name is a path of objects when no top-level key holds it whole") {
  const char* record = R"({"kubernetes":{"pod_name":"web-1","labels":{"app":"x"}},"msg":"m"})";
  CHECK(json_string_field(record, "kubernetes.pod_name") == "web-1");
  CHECK(json_string_field(record, "kubernetes.labels.app") == "x");
  CHECK(json_string_field(record, "kubernetes.labels") == std::nullopt);  // an object, not a string
  CHECK(json_string_field(record, "kubernetes.missing") == std::nullopt);
  CHECK(json_string_field(record, "msg.x") == std::nullopt);  // through a string
  CHECK(json_string_field(record, "kubernetes.") == std::nullopt);
  CHECK(json_string_field(record, ".kubernetes") == std::nullopt);
  CHECK(json_string_field(R"({"kubernetes.pod_name":"flat","kubernetes":{"pod_name":"nested"}})",
                          "kubernetes.pod_name") == "flat");
  CHECK(json_string_field(R"({"a":{"":{"b":"empty key"}}})", "a..b") == "empty key");  // as JSON allows
}
