// A UCIR trace read in segments (formats/ucir/ucir_segments.h) sends, for
// the steps each segment owns, exactly the calls the whole read sends:
// frames, syscalls, exits and keyframes falling on and around every cut,
// for every segment length from 3 to 20. Also what is not cut: threads.
#include <doctest/doctest.h>

#include <algorithm>
#include <vector>

#include "formats/ucir/ucir_reader.h"
#include "formats/ucir/ucir_writer.h"
#include "tests/support/busy_ucir_trace.h"
#include "ucir_test_support.h"

using namespace ttd;
using ttd::test::RecordingSink;

namespace {

// The shared busy trace (tests/support/busy_ucir_trace.h), its reads and
// writes in a two-page stack.
std::string write_busy_trace(uint32_t steps, bool trailing_effects) {
  const std::string path = test::temp_path("segments.ucir");
  test::BusyUcirTrace t;
  t.steps = steps;
  t.stack = 0x7fe000;
  t.stack_size = 0x2000;
  t.write_stride = 16;
  t.trailing_effects = trailing_effects;
  test::write_busy_ucir_trace(path, t);
  return path;
}

// Forwards the calls for the steps a segment owns.
class OwnedPart : public fmt::TraceSink {
 public:
  OwnedPart(RecordingSink& out, const fmt::SegmentStart& s) : out_(out), s_(s), next_(s.lead_eid) {}
  void begin(const fmt::TraceInfo& i) override { out_.begin(i); }
  void step(const fmt::StepInfo& st) override {
    const uint64_t eid = next_++;
    on_ = eid >= s_.eid && eid < s_.end_eid;
    if (on_) out_.step(st);
  }
  void attr(std::string_view k, const fmt::AttrValue& v) override {
    if (on_) out_.attr(k, v);
    if (!on_ && next_ <= s_.eid) lead_keys.emplace_back(k);
  }
  void reg(uint64_t t, uint16_t r, std::span<const uint8_t> v) override {
    if (on_) out_.reg(t, r, v);
  }
  void reg_unknown(uint64_t t, uint16_t r) override {
    if (on_) out_.reg_unknown(t, r);
  }
  void mem_write(uint64_t p, uint64_t a, std::span<const uint8_t> b) override {
    if (on_) out_.mem_write(p, a, b);
  }
  void mem_read(uint64_t p, uint64_t a, uint32_t n, std::span<const uint8_t> b) override {
    if (on_) out_.mem_read(p, a, n, b);
  }
  void mem_unknown(uint64_t p, uint64_t a, uint64_t n) override {
    if (on_) out_.mem_unknown(p, a, n);
  }
  void mem_map(uint64_t p, uint64_t a, uint64_t n, uint8_t pr, std::string_view name) override {
    if (on_) out_.mem_map(p, a, n, pr, name);
  }
  void mem_unmap(uint64_t p, uint64_t a, uint64_t n) override {
    if (on_) out_.mem_unmap(p, a, n);
  }
  void mem_protect(uint64_t p, uint64_t a, uint64_t n, uint8_t pr) override {
    if (on_) out_.mem_protect(p, a, n, pr);
  }
  void thread_begin(uint64_t t, uint64_t p) override {
    if (on_) out_.thread_begin(t, p);
  }
  void thread_end(uint64_t t) override {
    if (on_) out_.thread_end(t);
  }
  void end() override {
    ended = true;
    if (s_.end_eid == fmt::SegmentStart::kToEnd) out_.end();
  }
  std::vector<std::string> lead_keys;  // attribute keys the lead-in steps used
  bool ended = false;

 private:
  RecordingSink& out_;
  const fmt::SegmentStart& s_;
  uint64_t next_;
  bool on_ = false;
};

// Keys in order of first use among the log's steps before `eid`.
std::vector<std::string> keys_before(const std::vector<std::string>& log, uint64_t eid) {
  std::vector<std::string> keys;
  uint64_t steps = 0;
  for (const std::string& line : log) {
    if (line.rfind("step", 0) == 0 && steps++ == eid) break;
    if (line.rfind("attr ", 0) == 0) {
      std::string k = line.substr(5, line.find('=', 5) - 5);
      if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
    }
  }
  return keys;
}

}  // namespace

TEST_CASE("a UCIR trace read in segments sends each step's calls as the whole read does") {
  for (bool trailing : {false, true}) {
    const std::string path = write_busy_trace(230, trailing);
    auto reader = fmt::UcirReader::open(path).value();
    RecordingSink whole;
    REQUIRE(reader->read(whole, {}));
    for (uint64_t len = 3; len <= 20; ++len) {
      CAPTURE(len);
      CAPTURE(trailing);
      auto seg = reader->segments(len);
      REQUIRE(seg);
      RecordingSink parts;
      REQUIRE(seg->read_head(parts));
      uint64_t expect_eid = 0;
      size_t count = 0;
      for (;;) {
        auto next = seg->next();
        REQUIRE(next);
        if (!*next) break;
        const fmt::SegmentStart& s = (*next)->start();
        CHECK(s.eid == expect_eid);
        CHECK(s.eid % len == 0);
        CHECK(s.lead_eid == (s.eid == 0 ? 0 : s.eid - 2));
        OwnedPart part(parts, s);
        REQUIRE((*next)->read(part));
        // The keys before the segment's steps: the scan's, then the lead-in's.
        std::vector<std::string> keys = s.attr_keys;
        for (const std::string& k : part.lead_keys)
          if (std::find(keys.begin(), keys.end(), k) == keys.end()) keys.push_back(k);
        CHECK(keys == keys_before(whole.log, s.eid));
        CHECK(part.ended == (s.end_eid == fmt::SegmentStart::kToEnd));
        expect_eid = s.end_eid;
        ++count;
      }
      CHECK(count >= 230 / len);
      CHECK(test::join(parts.log) == test::join(whole.log));
    }
  }
  test::remove_temp_files();
}

TEST_CASE("a UCIR trace that names a second thread is not read in segments past it") {
  const std::string path = test::temp_path("segments-threads.ucir");
  {
    auto w = fmt::UcirWriter::create(path, ArchId::X86_64).value();
    w->begin_keyframe();
    w->mem_map(0x1000, 0x1000, 5, "code");
    w->end_keyframe();
    w->begin_frame();
    w->jmp(0x1000, 4);
    for (int i = 0; i < 40; ++i) w->step(2);
    w->set_thread(2);
    w->begin_frame();
    w->jmp(0x1000, 4);
    w->step(2);
    REQUIRE(w->close());
  }
  auto reader = fmt::UcirReader::open(path).value();
  auto seg = reader->segments(8);
  RecordingSink sink;
  REQUIRE(seg->read_head(sink));
  bool failed = false;
  for (int i = 0; i < 10 && !failed; ++i) {
    auto next = seg->next();
    if (!next) failed = true;
    else if (!*next) break;
  }
  CHECK(failed);
  CHECK(reader->segments(2) == nullptr);  // no room for the lead-in
  test::remove_temp_files();
}
