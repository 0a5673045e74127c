// FULL: read(write(execution)) gives back every register at every EID, and
// the loads and stores with the values the emulator moved.
#include <doctest/doctest.h>

#include <set>

#include "formats/tt6/full_reader.h"
#include "formats/tt6/testing/tt6_writer.h"
#include "state/arch.h"
#include "tt6_test_support.h"

namespace ttd::test {

using namespace fmt::tt6;

namespace {

std::string hex_bytes(const std::optional<std::vector<uint8_t>>& v) {
  if (!v) return "unknown";
  std::string s;
  char buf[4];
  for (uint8_t b : *v) {
    std::snprintf(buf, sizeof buf, "%02x", b);
    s += buf;
  }
  return s;
}

// The bytes of emulator memory at [addr, addr+len) in one timeline version.
std::vector<uint8_t> slice(const MemoryTimeline& m, const std::vector<uint8_t>& mem, uint64_t addr, uint64_t len) {
  return std::vector<uint8_t>(mem.begin() + long(addr - m.base()), mem.begin() + long(addr - m.base() + len));
}

bool is_code_write(const Effect& e, const std::vector<RecordedStep>& steps, size_t n) {
  return e.kind == Effect::MemWrite && e.size == 4 && n + 1 < steps.size() && e.addr == steps[n + 1].info.pc;
}

}  // namespace

TEST_CASE("FULL: every register at every EID is the emulator's live value") {
  const GuestRun& run = guest_run();
  REQUIRE(run.error.empty());
  REQUIRE(run.steps.size() > 300);
  auto read = read_bytes(run.full, Variant::Full);
  REQUIRE_MESSAGE(read->status.ok(), read->status.error().to_string());
  const RecordingSink& sink = read->sink;
  CHECK(sink.ended);
  CHECK(sink.info.format == "tt6-full");
  CHECK(sink.info.arch == ArchId::Ppc32);
  REQUIRE(sink.steps.size() == run.steps.size());

  const ArchDesc& arch = arch_desc(ArchId::Ppc32);
  int mismatches = 0;
  size_t compared = 0;
  for (size_t n = 0; n < run.steps.size() && mismatches < 10; ++n) {
    const RecordedStep& got = sink.steps[n];
    const TracedStep& want = run.steps[n];
    CHECK(got.info.pc == want.pc);
    CHECK(got.info.size == 4);
    CHECK(got.info.kind == (want.syscall ? fmt::StepKind::Syscall : fmt::StepKind::Instruction));
    RegisterValues expected = expected_registers(want.before);
    for (size_t r = 0; r < arch.regs.size(); ++r) {
      if (r == arch.pc_index) continue;  // the consumer sets pc from the step
      ++compared;
      if (got.regs_before[r] != expected[r]) {
        ++mismatches;
        FAIL_CHECK("EID " << n << " " << arch.regs[r].name << ": read " << hex_bytes(got.regs_before[r])
                          << ", emulator " << hex_bytes(expected[r]));
      }
    }
  }
  CHECK(mismatches == 0);
  CHECK(compared == run.steps.size() * (arch.regs.size() - 1));
  // The vector registers, VSCR and VRSAVE really moved during the run.
  CHECK(run.steps.front().before.vr[6][0] != run.steps.back().before.vr[6][0]);
  CHECK(run.steps.front().before.vrsave != run.steps.back().before.vrsave);
  // After the last instruction nothing is known.
  for (size_t r = 0; r < arch.regs.size(); ++r)
    if (r != arch.pc_index) CHECK_FALSE(sink.regs[r].has_value());
}

TEST_CASE("FULL: loads and stores carry the values the emulator moved") {
  const GuestRun& run = guest_run();
  REQUIRE(run.error.empty());
  auto read = read_bytes(run.full, Variant::Full);
  REQUIRE(read->status.ok());
  const auto& steps = read->sink.steps;
  REQUIRE(steps.size() == run.steps.size());
  const MemoryTimeline& mem = run.memory;
  size_t known_reads = 0, known_writes = 0, unknown_reads = 0, unknown_writes = 0;

  for (size_t n = 0; n < steps.size(); ++n) {
    const auto& before = mem.before(n);
    const auto& after = mem.before(n + 1);
    std::set<uint64_t> written;  // bytes the reader says step n wrote
    std::set<uint64_t> read_bytes_;
    for (const Effect& e : steps[n].effects) {
      if (is_code_write(e, steps, n)) continue;
      if (e.kind == Effect::MemRead) {
        for (uint64_t a = e.addr; a < e.addr + e.size; ++a) read_bytes_.insert(a);
        if (e.bytes.empty()) {
          ++unknown_reads;
          continue;
        }
        ++known_reads;
        REQUIRE(mem.contains(e.addr, e.size));
        CHECK_MESSAGE(e.bytes == slice(mem, before, e.addr, e.size), "EID " << n << " load at " << e.addr);
      } else if (e.writes()) {
        for (uint64_t a = e.addr; a < e.addr + e.size; ++a) written.insert(a);
        if (e.kind == Effect::MemUnknown) {
          ++unknown_writes;
          continue;
        }
        ++known_writes;
        REQUIRE(mem.contains(e.addr, e.size));
        CHECK_MESSAGE(e.bytes == slice(mem, after, e.addr, e.size), "EID " << n << " store at " << e.addr);
      }
    }
    // Every byte the step changed is one the reader says it wrote.
    for (uint32_t i = 0; i < mem.size(); ++i)
      if (before[i] != after[i]) CHECK_MESSAGE(written.count(mem.base() + i), "EID " << n << " changed " << mem.base() + i);
    // Every access Unicorn's hooks saw is one the reader reports (but the
    // reads QEMU makes to probe cache-block ops and stwcx. are no data reads).
    for (const HookedAccess& h : run.steps[n].hooked)
      if (h.write || !hooked_read_is_probe(run.steps[n].opcode))
        for (uint64_t a = h.addr; a < uint64_t(h.addr) + h.size; ++a)
        CHECK_MESSAGE((h.write ? written : read_bytes_).count(a), "EID " << n << " hooked access at " << a);
  }
  // The last instruction is no load, so only stores whose value FULL
  // cannot tell are unknown: none in this guest.
  CHECK(known_reads > 50);
  CHECK(known_writes > 50);
  CHECK(unknown_reads == 0);
  CHECK(unknown_writes == 0);
}

TEST_CASE("FULL: a vector register without its save_vrvalid bit is unknown") {
  PpcUserState s;
  s.srr0 = 0x1000;
  s.vrvalid = 0xC0000000u;  // vr0 and vr1
  s.vr[0][3] = 7;
  s.vr[1][0] = 9;
  FullWriter w;
  w.record(0x60000000u, s);  // nop
  s.srr0 += 4;
  s.vrvalid = 0x80000000u;  // vr1 no longer saved
  s.vr[0][3] = 8;
  w.record(0x60000000u, s);
  auto read = read_bytes(w.bytes(), Variant::Full);
  REQUIRE(read->status.ok());
  const ArchDesc& arch = arch_desc(ArchId::Ppc32);
  const uint16_t vr0 = *arch.find("vr0"), vr1 = *arch.find("vr1"), vr2 = *arch.find("vr2");
  const auto& steps = read->sink.steps;
  REQUIRE(steps.size() == 2);
  CHECK(steps[0].regs_before[vr0] == std::vector<uint8_t>{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 7});
  CHECK(steps[0].regs_before[vr1].has_value());
  CHECK_FALSE(steps[0].regs_before[vr2].has_value());
  CHECK(steps[1].regs_before[vr0]->back() == 8);
  CHECK_FALSE(steps[1].regs_before[vr1].has_value());
}

}  // namespace ttd::test
