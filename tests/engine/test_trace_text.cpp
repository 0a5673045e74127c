// Text from a trace that is not valid UTF-8 (issue 21): escaped as \xHH
// where it enters the engine, so the index's JSON metadata, `ttd info`,
// Python and DAP never see invalid UTF-8 (the JSON writer used to abort).
#include <doctest/doctest.h>

#include <string>

#include "engine/trace.h"
#include "engine/trace_text.h"
#include "index_safety_support.h"

using namespace ttd;
using namespace ttd::test;

TEST_CASE("text_from_trace keeps valid UTF-8 and escapes every invalid byte") {
  CHECK(text_from_trace("linux") == "linux");
  CHECK(text_from_trace("C:\\Windows\\x.exe") == "C:\\Windows\\x.exe");  // backslashes stay
  CHECK(text_from_trace("gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80") == "gr\xc3\xbc\xc3\x9f \xe2\x82\xac \xf0\x9f\x98\x80");
  CHECK(text_from_trace("a\xff" "b") == "a\\xffb");
  CHECK(text_from_trace("\xc0\xaf") == "\\xc0\\xaf");              // overlong '/'
  CHECK(text_from_trace("\xed\xa0\x80") == "\\xed\\xa0\\x80");      // a surrogate
  CHECK(text_from_trace("\xf4\x90\x80\x80") == "\\xf4\\x90\\x80\\x80");  // above U+10FFFF
  CHECK(text_from_trace("ok\xe2\x82") == "ok\\xe2\\x82");           // cut short at the end
  CHECK(text_from_trace(std::string("a\0b", 3)) == std::string("a\0b", 3));
  CHECK(is_valid_utf8(text_from_trace("\x80\x81\xfe")));
}

TEST_CASE("a trace whose OS name, properties, attributes and mappings are not UTF-8 opens, and reopens") {
  ScratchDir d;
  spit(d / "t.trace", "trace");
  OpenOptions o = text_reader_options([](TextReader& r) {
    r.info.os = "lin\xffux";
    r.info.exec_path = "/bin/\xfe";
    r.info.caps.note = "\xc3";
    r.info.properties = {{"tool_name", "rvn\x80"}, {"k\xff", "v"}};
    r.key = "key\xff";
    r.value = "val\xfe";
    r.map_name = "map\xff";
  });
  for (bool reopen : {false, true}) {
    CAPTURE(reopen);
    auto t = Trace::open(d / "t.trace", o);
    REQUIRE(t.ok());
    CHECK((*t)->stats().reused == reopen);  // the metadata was written, and parses back
    const fmt::TraceInfo& info = (*t)->info();
    CHECK(info.os == "lin\\xffux");
    CHECK(info.exec_path == "/bin/\\xfe");
    CHECK(info.caps.note == "\\xc3");
    REQUIRE(info.properties.size() == 2);
    CHECK(info.properties[0].second == "rvn\\x80");
    CHECK(info.properties[1].first == "k\\xff");
    std::vector<StepRecord> steps;
    REQUIRE((*t)->for_each_step(0, 1, [&](const StepRecord& r) {
      steps.push_back(r);
      return true;
    }).ok());
    REQUIRE(steps.size() == 1);
    REQUIRE(steps[0].attrs.size() == 1);
    CHECK(steps[0].attrs[0].first == "key\\xff");
    CHECK(std::get<std::string>(steps[0].attrs[0].second) == "val\\xfe");
  }
}
