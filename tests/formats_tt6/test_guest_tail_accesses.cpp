// The accesses of start.S's tail, derived by hand from the assembly (r9 =
// scratch, r8 = scratch + 128): an independent check of the opcode tables,
// in particular for the instructions Unicorn's hooks do not report.
#include <doctest/doctest.h>

#include <vector>

#include "tt6_test_support.h"

namespace ttd::test {

using namespace fmt::tt6;

namespace {

enum class Want { Read, Write, Zero, CondWrite, CondFail };
struct Access {
  Want want;
  uint32_t offset, size;
  const char* what;
};

const std::vector<Access> kTail = {
    {Want::Write, 0, 20, "stmw r27,0(r9)"},      {Want::Read, 4, 16, "lmw r28,4(r9)"},
    {Want::Write, 0, 7, "stswi r3,r9,7"},        {Want::Read, 0, 6, "lswi r10,r9,6"},
    {Want::Write, 16, 9, "stswx (XER=9)"},       {Want::Read, 16, 9, "lswx (XER=9)"},
    {Want::Write, 16, 2, "sthbrx"},              {Want::Read, 16, 2, "lhbrx"},
    {Want::Write, 0, 4, "stwbrx"},               {Want::Read, 0, 4, "lwbrx"},
    {Want::Write, 3, 1, "stb r5,3(r9)"},         {Want::Read, 3, 1, "lbzu r15,3(r9)"},
    {Want::Write, 5, 2, "sthu r4,2(r9)"},        {Want::Read, 5, 2, "lhau r16,0(r9)"},
    {Want::Read, 64, 8, "lfd"},                  {Want::Write, 72, 8, "stfd"},
    {Want::Read, 72, 8, "lfdx"},                 {Want::Write, 80, 4, "stfs"},
    {Want::Read, 80, 4, "lfs"},                  {Want::Write, 84, 4, "stfiwx"},
    {Want::Write, 84, 4, "stfsx"},               {Want::Read, 84, 4, "lfsx"},
    {Want::Zero, 128, 32, "dcbz"},               {Want::Read, 128, 16, "lvx"},
    {Want::Read, 133, 1, "lvebx"},               {Want::Read, 134, 2, "lvehx"},
    {Want::Read, 136, 4, "lvewx"},               {Want::Write, 147, 1, "stvebx"},
    {Want::Write, 150, 2, "stvehx"},             {Want::Write, 152, 4, "stvewx"},
    {Want::Write, 0, 16, "stvx"},                {Want::Read, 0, 4, "lwarx"},
    {Want::CondWrite, 0, 4, "stwcx. (holds)"},   {Want::CondFail, 0, 4, "stwcx. (fails)"},
};

void check_tail(Variant v) {
  const GuestRun& run = guest_run();
  REQUIRE(run.error.empty());
  const auto& bytes = v == Variant::Tt6 ? run.tt6 : v == Variant::Tt6e ? run.tt6e : run.full;
  auto read = read_bytes(bytes, v);
  REQUIRE(read->status.ok());
  const auto& steps = read->sink.steps;

  std::vector<Access> want;
  for (const Access& a : kTail) {
    if (a.want == Want::Zero && v == Variant::Tt6) continue;        // TT6: dcbz is COMPUTE, no address
    if (a.want == Want::CondFail && v == Variant::Full) continue;   // FULL: CR0 says it stored nothing
    want.push_back(a);
  }
  size_t next = 0;
  size_t dst_seen = 0;
  for (size_t i = 0; i < steps.size(); ++i) {
    const RecordedStep& s = steps[i];
    if (s.info.pc < run.tail_begin || s.info.pc >= run.tail_end || s.info.size == 0) continue;
    if (s.attrs.count("dst_ea")) {
      ++dst_seen;
      CHECK(std::get<uint64_t>(s.attrs.at("dst_ea")) == run.scratch + 128);
      CHECK(std::get<uint64_t>(s.attrs.at("dst_control")) == 0x100);
    }
    for (const Effect& e : s.effects) {
      if (e.kind == Effect::Reg || e.kind == Effect::RegUnknown) continue;
      if (e.kind == Effect::MemWrite && e.size == 4 && i + 1 < steps.size() && e.addr == steps[i + 1].info.pc)
        continue;  // the next instruction's code bytes
      REQUIRE_MESSAGE(next < want.size(), "unexpected access at " << e.addr << " size " << e.size);
      const Access& a = want[next++];
      INFO(a.what);
      CHECK(e.addr == run.scratch + a.offset);
      CHECK(e.size == a.size);
      switch (a.want) {
        case Want::Read: CHECK(e.kind == Effect::MemRead); break;
        case Want::Zero:
          CHECK(e.kind == Effect::MemWrite);
          CHECK(e.bytes == std::vector<uint8_t>(32, 0));
          break;
        case Want::Write:
        case Want::CondWrite:
        case Want::CondFail:
          // TT6/TT6E know no values: a store makes the bytes unknown.
          CHECK(e.kind == (v == Variant::Full ? Effect::MemWrite : Effect::MemUnknown));
          break;
      }
      if (v == Variant::Full && e.kind == Effect::MemRead) CHECK(e.bytes.size() == e.size);
      if (v != Variant::Full && e.kind == Effect::MemRead) CHECK(e.bytes.empty());
    }
  }
  CHECK(next == want.size());
  CHECK(dst_seen == 1);
}

}  // namespace

TEST_CASE("TT6: start.S's accesses, by hand") { check_tail(Variant::Tt6); }
TEST_CASE("TT6E: start.S's accesses, by hand") { check_tail(Variant::Tt6e); }
TEST_CASE("FULL: start.S's accesses, by hand") { check_tail(Variant::Full); }

}  // namespace ttd::test
