// TT6 and TT6E: read(write(execution)) gives back the pc sequence, the
// opcodes, the addresses each instruction accessed, the synchronisation
// records and (TT6E) the synthetic trap return.
#include <doctest/doctest.h>

#include <map>
#include <set>

#include "formats/tt6/escape_records.h"
#include "formats/tt6/ppc_opcode.h"
#include "tt6_test_support.h"

namespace ttd::test {

using namespace fmt::tt6;

namespace {

struct ByteSets {
  std::set<uint64_t> read, written;
};

void add_range(std::set<uint64_t>& s, uint64_t addr, uint64_t size) {
  for (uint64_t a = addr; a < addr + size; ++a) s.insert(a);
}

// What the reader says one step accessed (code-byte writes excluded).
ByteSets reader_accesses(const RecordedStep& step, std::optional<uint64_t> next_pc) {
  ByteSets b;
  for (const Effect& e : step.effects) {
    if (e.kind == Effect::MemWrite && e.size == 4 && next_pc && e.addr == *next_pc) continue;
    if (e.kind == Effect::MemRead) add_range(b.read, e.addr, e.size);
    if (e.writes()) add_range(b.written, e.addr, e.size);
  }
  return b;
}

uint64_t attr_u64(const RecordedStep& s, const std::string& key) {
  auto it = s.attrs.find(key);
  REQUIRE_MESSAGE(it != s.attrs.end(), "no attr " << key);
  return std::get<uint64_t>(it->second);
}

void check_variant(Variant v) {
  const GuestRun& run = guest_run();
  REQUIRE(run.error.empty());
  auto read = read_bytes(v == Variant::Tt6 ? run.tt6 : run.tt6e, v);
  REQUIRE_MESSAGE(read->status.ok(), read->status.error().to_string());
  const RecordingSink& sink = read->sink;
  CHECK(sink.ended);
  CHECK(sink.info.format == variant_format_name(v));

  std::map<uint64_t, std::vector<uint8_t>> code;  // the code bytes reported so far
  auto note_code = [&](const std::vector<Effect>& effects) {
    for (const Effect& e : effects)
      if (e.kind == Effect::MemWrite && e.size == 4) code[e.addr] = e.bytes;
  };
  note_code(sink.initial);

  size_t traced = 0, syncs = 0, synthetic = 0, hooked_steps = 0;
  const auto& steps = sink.steps;
  for (size_t i = 0; i < steps.size(); ++i) {
    const RecordedStep& s = steps[i];
    if (s.info.kind == fmt::StepKind::Marker) {
      REQUIRE(syncs < run.syncs.size());
      const TracedSync& want = run.syncs[syncs++];
      CHECK(want.before_step == traced);
      CHECK(s.info.pc == run.steps[traced].pc);
      CHECK(std::get<std::string>(s.attrs.at("sync")) == sync_kind_name(want.type));
      CHECK(attr_u64(s, "sync_addr") == want.sync_point);
      CHECK(attr_u64(s, "sync_count") == want.count);
      note_code(s.effects);
      continue;
    }
    if (s.info.kind == fmt::StepKind::Interrupt) {
      // TT6E's b 0x700 + rfi right after a trap that was taken.
      REQUIRE(v == Variant::Tt6e);
      REQUIRE(traced > 0);
      CHECK(run.steps[traced - 1].trapped);
      CHECK(s.info.size == 0);
      const std::string what = std::get<std::string>(s.attrs.at("synthetic"));
      CHECK(what == (synthetic % 2 == 0 ? "b 0x00000700" : "rfi"));
      CHECK(s.info.pc == (synthetic % 2 == 0 ? run.steps[traced - 1].next_pc : kTrapVector));
      ++synthetic;
      note_code(s.effects);
      continue;
    }
    REQUIRE(traced < run.steps.size());
    const TracedStep& want = run.steps[traced];
    CHECK(s.info.pc == want.pc);
    CHECK(s.info.size == 4);
    CHECK(s.info.kind == (want.syscall ? fmt::StepKind::Syscall : fmt::StepKind::Instruction));
    const std::vector<uint8_t> opcode = be_words({want.opcode});
    CHECK_MESSAGE(code[want.pc] == opcode, "EID " << i << " code bytes at " << want.pc);

    // Accesses: the reader's must cover what the emulator's hooks saw and
    // every byte the step changed, and where the hooks saw the access
    // they must be the same bytes (Unicorn's helpers - lmw, the string
    // instructions, dcbz - report no hooks; start.S's table test covers them).
    std::optional<uint64_t> next_pc;
    if (i + 1 < steps.size()) next_pc = steps[i + 1].info.pc;
    ByteSets got = reader_accesses(s, next_pc);
    ByteSets hooked;
    for (const HookedAccess& h : want.hooked) add_range(h.write ? hooked.written : hooked.read, h.addr, h.size);
    const auto& before = run.memory.before(traced);
    const auto& after = run.memory.before(traced + 1);
    std::set<uint64_t> changed;
    for (uint32_t b = 0; b < run.memory.size(); ++b)
      if (before[b] != after[b]) changed.insert(run.memory.base() + b);
    const bool dcbx_in_tt6 = v == Variant::Tt6 && access_shape(want.opcode).kind == AccessKind::CacheZero;
    for (uint64_t a : changed)
      if (!dcbx_in_tt6) CHECK_MESSAGE(got.written.count(a), "EID " << i << " changed byte " << a << " not reported");
    if (!want.hooked.empty()) {
      ++hooked_steps;
      if (!hooked_read_is_probe(want.opcode))
        CHECK_MESSAGE(got.read == hooked.read, "EID " << i << " opcode " << want.opcode);
      if (access_shape(want.opcode).kind != AccessKind::StoreCond)
        CHECK_MESSAGE(got.written == hooked.written, "EID " << i << " opcode " << want.opcode);
    }
    note_code(s.effects);
    ++traced;
  }
  CHECK(traced == run.steps.size());
  CHECK(syncs == run.syncs.size());
  CHECK(run.syncs.size() >= 6);
  CHECK(hooked_steps > 100);
  size_t traps = 0;
  for (const TracedStep& t : run.steps) traps += t.trapped;
  CHECK(traps == 1);
  CHECK(synthetic == (v == Variant::Tt6e ? 2 * traps : 0));
}

}  // namespace

TEST_CASE("TT6: pcs, opcodes, accessed addresses and sync records are the emulator's") { check_variant(Variant::Tt6); }

TEST_CASE("TT6E: the same, plus DCBx addresses and the synthetic trap return") {
  check_variant(Variant::Tt6e);
  // dcbt/dcbtst/dcbst/dcbf/icbi carry their address as an attribute.
  const GuestRun& run = guest_run();
  auto read = read_bytes(run.tt6e, Variant::Tt6e);
  REQUIRE(read->status.ok());
  size_t cache_eas = 0;
  for (const RecordedStep& s : read->sink.steps)
    if (s.attrs.count("cache_ea")) {
      ++cache_eas;
      CHECK(std::get<uint64_t>(s.attrs.at("cache_ea")) == run.scratch + 128);
    }
  CHECK(cache_eas == 5);
}

}  // namespace ttd::test
