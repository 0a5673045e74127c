// The step planner (engine/motion/step_planner.h) on a scripted program: main calls f. Checks next,
// stepIn, stepOut and stepBack (by line and by instruction) against the
// positions gdb would stop at.
#include <doctest/doctest.h>

#include <filesystem>
#include <fstream>
#include <map>

#include "engine/motion/step_planner.h"
#include "engine/trace.h"
#include "synthetic_trace.h"

using namespace ttd;
namespace fs = std::filesystem;

namespace {

struct PcFact {
  int line;
  bool stmt;
  Flow flow;
};

// main: 0x100 entry (line 10), 0x104 line 11, 0x108 call f, 0x10c the
// return address (still line 11), 0x110 line 12, 0x114, 0x118 line 13.
// f:    0x200 entry (line 20), 0x204 line 21, 0x208, 0x20c line 22, 0x210 ret.
const std::map<uint64_t, PcFact> kFacts = {
    {0x100, {10, false, Flow::Other}}, {0x104, {11, true, Flow::Other}},  {0x108, {11, false, Flow::Call}},
    {0x10c, {11, false, Flow::Other}}, {0x110, {12, true, Flow::Other}},  {0x114, {12, false, Flow::Other}},
    {0x118, {13, true, Flow::Other}},  {0x200, {20, false, Flow::Other}}, {0x204, {21, true, Flow::Other}},
    {0x208, {21, false, Flow::Other}}, {0x20c, {22, true, Flow::Other}},  {0x210, {22, false, Flow::Return}},
};
// EID:                     0      1      2      3      4      5      6      7      8      9      10     11
const uint64_t kPcs[] = {0x100, 0x104, 0x108, 0x200, 0x204, 0x208, 0x20c, 0x210, 0x10c, 0x110, 0x114, 0x118};

struct FakeFacts : PcFacts {
  Flow flow(uint64_t, uint64_t pc) override { return kFacts.at(pc).flow; }
  bool statement_start(uint64_t pc) override { return kFacts.at(pc).stmt; }
  std::optional<uint64_t> line_key(uint64_t pc) override { return uint64_t(kFacts.at(pc).line); }
};

struct Program {
  std::string path;
  std::shared_ptr<Trace> trace;
  Program() {
    path = (fs::temp_directory_path() / ("ttd-step-planner-" + std::to_string(::getpid()))).string();
    std::ofstream(path) << "synthetic";
    auto synth = std::make_shared<test::SynthTrace>();
    synth->initial.push_back({test::SynthEffect::Map, 1, 0, 0x10000, std::vector<uint8_t>(0x1000, 0)});
    for (uint64_t pc : kPcs) {
      test::SynthStep s;
      s.info = fmt::StepInfo{7, 1, pc, 4, fmt::StepKind::Instruction};
      synth->steps.push_back(s);
    }
    OpenOptions o;
    o.keyframe_interval = 16;  // the smallest: several chunks are not needed here
    o.reader_factory = [synth]() -> Result<std::unique_ptr<fmt::TraceReader>> {
      return std::unique_ptr<fmt::TraceReader>(new test::SynthReader(synth));
    };
    auto t = Trace::open(path, o);
    REQUIRE(t.ok());
    trace = *t;
  }
  ~Program() {
    std::remove(path.c_str());
    std::remove((path + ".ttdidx").c_str());
  }
  StepResult step(uint64_t from, StepMotion m, Direction d, StepUnit g, std::vector<uint64_t> bps = {}) {
    StepTimeline tl(*trace);
    FakeFacts facts;
    StepRequest r;
    r.motion = m;
    r.direction = d;
    r.granularity = g;
    r.tidx = *tl.thread_index(7);
    r.from = from;
    r.breakpoints = bps;
    return plan_step(tl, facts, r, {});
  }
};

const auto F = Direction::Forward;
const auto B = Direction::Backward;
const auto L = StepUnit::Line;
const auto I = StepUnit::Instruction;
using K = StepResult::Kind;

}  // namespace

TEST_CASE("line stepping forwards") {
  Program p;
  CHECK(p.step(1, StepMotion::Over, F, L).eid == 9);  // next runs through the call
  CHECK(p.step(1, StepMotion::In, F, L).eid == 4);    // step lands after f's prologue
  CHECK(p.step(4, StepMotion::Over, F, L).eid == 6);
  CHECK(p.step(6, StepMotion::Over, F, L).eid == 9);  // off the end of f: the caller's next line
  CHECK(p.step(4, StepMotion::Out, F, L).eid == 8);   // finish: the return address
  CHECK(p.step(0, StepMotion::Over, F, L).eid == 1);
  StepResult end = p.step(11, StepMotion::Over, F, L);
  CHECK(end.kind == K::HistoryEnd);
}

TEST_CASE("line stepping backwards") {
  Program p;
  CHECK(p.step(9, StepMotion::Over, B, L).eid == 1);  // back over the line with the call
  CHECK(p.step(6, StepMotion::Over, B, L).eid == 4);  // back one line inside f
  CHECK(p.step(4, StepMotion::Over, B, L).eid == 1);  // back out of f to the start of the calling line
  CHECK(p.step(5, StepMotion::Over, B, L).eid == 4);  // from mid-line: the start of this line
  CHECK(p.step(1, StepMotion::Over, B, L).kind == K::HistoryStart);
  CHECK(p.step(6, StepMotion::Out, B, L).eid == 2);   // reverse finish: the call instruction
}

TEST_CASE("instruction stepping both ways") {
  Program p;
  CHECK(p.step(2, StepMotion::In, F, I).eid == 3);
  CHECK(p.step(2, StepMotion::Over, F, I).eid == 8);  // over the call
  CHECK(p.step(8, StepMotion::Over, B, I).eid == 2);  // back over the call
  CHECK(p.step(8, StepMotion::In, B, I).eid == 7);    // back into f's ret
  CHECK(p.step(3, StepMotion::Over, B, I).eid == 2);  // back out of f
  CHECK(p.step(0, StepMotion::In, B, I).kind == K::HistoryStart);
}

TEST_CASE("breakpoints stop a step on the way") {
  Program p;
  StepResult r = p.step(1, StepMotion::Over, F, L, {0x20c});
  CHECK(r.kind == K::Breakpoint);
  CHECK(r.eid == 6);
  r = p.step(9, StepMotion::Over, B, L, {0x208});
  CHECK(r.kind == K::Breakpoint);
  CHECK(r.eid == 5);
  // A breakpoint at the start position does not stop the step.
  CHECK(p.step(6, StepMotion::Over, B, L, {0x20c}).eid == 4);
}
