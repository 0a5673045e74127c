// The pieces: the spec's opcode classes, escape records, sniffing and the
// registry entries, stfs's conversion.
#include <doctest/doctest.h>

#include <cstring>

#include "formats/tt6/full_memory_effects.h"
#include "formats/tt6/ppc_opcode.h"
#include "formats/tt6/tt6_format.h"
#include "formats/tt6/tt6_record_decoder.h"
#include "formats/tt6/tt6_sniff.h"
#include "temp_file.h"
#include "tt6_test_support.h"

namespace ttd::test {

using namespace fmt::tt6;

TEST_CASE("Opcode classes follow the spec's macros") {
  const auto& tt6 = classifier(Variant::Tt6);
  const auto& tt6e = classifier(Variant::Tt6e);
  auto x31 = [](uint32_t minor) { return (31u << 26) | (minor << 1); };
  auto x19 = [](uint32_t minor) { return (19u << 26) | (minor << 1); };
  CHECK(tt6.classify(0x48000008u) == RecordClass::FlowAltering);  // b
  CHECK(tt6.classify(0x4182000cu) == RecordClass::FlowAltering);  // beq
  CHECK(tt6.classify(x19(16)) == RecordClass::FlowAltering);      // blr
  CHECK(tt6.classify(x19(528)) == RecordClass::FlowAltering);     // bctr
  CHECK(tt6.classify(kRfi) == RecordClass::FlowAltering);
  CHECK(tt6.classify(0x44000002u) == RecordClass::FlowAltering);  // sc
  CHECK(tt6.classify(x19(193)) == RecordClass::Compute);          // crxor
  CHECK(tt6.classify(0x80690000u) == RecordClass::Memory);        // lwz
  CHECK(tt6.classify(0xbf890020u) == RecordClass::Memory);        // stmw
  CHECK(tt6.classify(x31(23)) == RecordClass::Memory);            // lwzx
  CHECK(tt6.classify(x31(231)) == RecordClass::Memory);           // stvx
  CHECK(tt6.classify(x31(150)) == RecordClass::Memory);           // stwcx.
  CHECK(tt6.classify(x31(266)) == RecordClass::Compute);          // add
  CHECK(tt6.classify(x31(533)) == RecordClass::MemoryExtended);   // lswx
  CHECK(tt6.classify(x31(342)) == RecordClass::MemoryExtended);   // dst
  CHECK(tt6.classify(0x38600005u) == RecordClass::Compute);       // li
  CHECK(tt6.classify(0x00200002u) == RecordClass::Escape);
  // TT6E adds the DCBx instructions; TT6 writes them as COMPUTE.
  for (uint32_t m : {758u, 86u, 470u, 54u, 278u, 246u, 1014u, 982u}) {
    CHECK(tt6.classify(x31(m)) == RecordClass::Compute);
    CHECK(tt6e.classify(x31(m)) == RecordClass::Memory);
  }
}

TEST_CASE("Access shapes: sizes and alignment from the opcode") {
  auto size_of = [](uint32_t op, uint32_t xer = 0) { return access_size(op, access_shape(op), xer); };
  CHECK(size_of(0xbb890010u) == 16);          // lmw r28: 4 registers
  CHECK(size_of(0xbc010000u) == 128);         // stmw r0
  CHECK(size_of(0x7ca954aau) == 10);          // lswi r5,r9,10
  CHECK(size_of(0x7ca904aau) == 32);          // lswi NB=0 means 32
  CHECK(size_of(0x7d49342au, 0x20000007u) == 7);  // lswx: XER[25:31]
  CHECK(size_of(0xe8690002u) == 4);           // lwa
  CHECK(size_of(0xe8690000u) == 8);           // ld
  const AccessShape& lvx = access_shape(0x7c0048ceu);
  CHECK(lvx.size == 16);
  CHECK(access_address(0x3000f, lvx) == 0x30000);
  uint32_t gpr[32] = {};
  gpr[9] = 0x30000;
  gpr[6] = 0x10;
  CHECK(effective_address(0x8069fff8u, access_shape(0x8069fff8u), gpr) == 0x2fff8);  // lwz r3,-8(r9)
  CHECK(effective_address(0x7d49342au, access_shape(0x7d49342au), gpr) == 0x30010);  // lswx r10,r9,r6
  CHECK(effective_address(0x7c0048ceu, access_shape(0x7c0048ceu), gpr) == 0x30000);  // lvx v0,0,r9
}

TEST_CASE("stfs / lfs single <-> double bits") {
  auto single = [](double d) {
    uint64_t bits;
    std::memcpy(&bits, &d, 8);
    uint32_t s = 0;
    REQUIRE(single_from_double_bits(bits, s));
    return s;
  };
  CHECK(single(1.0) == 0x3f800000u);
  CHECK(single(-2.5) == 0xc0200000u);
  CHECK(single(0.0) == 0u);
  CHECK(single(-0.0) == 0x80000000u);
  CHECK(single(1e-40) == 0x000116c2u);  // a single denormal: 1e-40 as a float, truncated
  uint32_t s = 0;
  CHECK_FALSE(single_from_double_bits(0x0010000000000000ull, s));  // far below single range
}

TEST_CASE("Escape records: instruction attributes and sync markers") {
  std::vector<uint32_t> words = {0x1000,
                                 make_escape(0x02, 1), 0x22000000,  // CR for the next instruction
                                 make_escape(0x30, 2), 0xbeef0, 3,   // wait on 0xbeef0, count 3
                                 0x60000000,
                                 make_escape(0x7f, 2), 1, 2};        // unknown code, after the last one
  std::vector<uint8_t> bytes;
  for (uint32_t w : words) {
    auto b = be_words({w});
    bytes.insert(bytes.end(), b.begin(), b.end());
  }
  auto read = read_bytes(bytes, Variant::Tt6);
  REQUIRE(read->status.ok());
  const auto& steps = read->sink.steps;
  REQUIRE(steps.size() == 3);
  CHECK(steps[0].info.kind == fmt::StepKind::Marker);
  CHECK(std::get<std::string>(steps[0].attrs.at("sync")) == "wait");
  CHECK(std::get<uint64_t>(steps[0].attrs.at("sync_addr")) == 0xbeef0);
  CHECK(std::get<uint64_t>(steps[0].attrs.at("sync_count")) == 3);
  CHECK(steps[1].info.pc == 0x1000);
  CHECK(std::get<uint64_t>(steps[1].attrs.at("cr")) == 0x22000000);
  CHECK(steps[2].info.kind == fmt::StepKind::Marker);
  CHECK(steps[2].info.pc == 0x1004);
  CHECK(std::get<std::vector<uint64_t>>(steps[2].attrs.at("escape_0x7f")) == std::vector<uint64_t>{1, 2});
}

TEST_CASE("A sync marker before an instruction: its code bytes are in memory at the marker") {
  // gdb reads the instruction at the pc before a PowerPC step; stopped at
  // the marker it could not (the bytes came with the instruction's own
  // step) and gdb 13 then hung on the next step.
  auto bytes = be_words({0x1000, 0x38600005,                  // li r3,5 at 0x1000
                         make_escape(0x30, 2), 0xbeef0, 3,     // wait, at 0x1004
                         make_escape(0x02, 1), 0x22000000,     // CR for the next instruction
                         0x60000000});                         // nop at 0x1004
  auto read = read_bytes(bytes, Variant::Tt6);
  REQUIRE(read->status.ok());
  const auto& steps = read->sink.steps;
  REQUIRE(steps.size() == 3);
  auto code_writes = [](const std::vector<test::Effect>& effects, uint64_t addr) {
    std::vector<std::vector<uint8_t>> out;
    for (const auto& e : effects)
      if (e.kind == test::Effect::MemWrite && e.addr == addr) out.push_back(e.bytes);
    return out;
  };
  CHECK(steps[1].info.kind == fmt::StepKind::Marker);
  CHECK(steps[1].info.pc == 0x1004);
  // The nop's bytes: an effect of the step before the marker, none later.
  CHECK(code_writes(steps[0].effects, 0x1004) == std::vector<std::vector<uint8_t>>{{0x60, 0, 0, 0}});
  CHECK(code_writes(steps[1].effects, 0x1004).empty());
  CHECK(code_writes(steps[2].effects, 0x1004).empty());
  CHECK(steps[2].info.pc == 0x1004);
  CHECK(std::get<uint64_t>(steps[2].attrs.at("cr")) == 0x22000000);

  // In pieces: the decoder asks for the bytes up to the next instruction
  // record before it emits the marker, all at once (not a word at a time).
  RecordingSink sink;
  fmt::TraceInfo info;
  info.arch = ArchId::Ppc32;
  sink.begin(info);
  Tt6RecordDecoder dec(Variant::Tt6, sink, "x.tt6", 0x1004);
  auto marker = be_words({make_escape(0x30, 2), 0xbeef0, 3, make_escape(0x7e, 0xFFFF)});
  auto r = dec.decode(marker.data(), marker.data() + marker.size(), 4, false);
  REQUIRE(r.ok());
  CHECK(r.value().consumed == 0);
  CHECK(r.value().need == 12 + 4 + 0xFFFF * 4 + 4);
  CHECK(sink.steps.empty());
  // At the end of the file there is nothing to look ahead to: the marker alone.
  auto last = be_words({make_escape(0x30, 2), 0xbeef0, 3});
  auto r2 = dec.decode(last.data(), last.data() + last.size(), 4, true);
  REQUIRE(r2.ok());
  CHECK(r2.value().consumed == 12);
  REQUIRE(sink.steps.size() == 1);
  CHECK(sink.steps[0].info.kind == fmt::StepKind::Marker);
}

TEST_CASE("Sniffing by extension and plausibility, the registry names") {
  const GuestRun& run = guest_run();
  REQUIRE(run.error.empty());
  fmt::FormatEntry tt6 = fmt::tt6_format(), tt6e = fmt::tt6e_format(), full = fmt::tt6_full_format();
  CHECK(tt6.name == "tt6");
  CHECK(tt6e.name == "tt6e");
  CHECK(full.name == "tt6-full");
  auto head = [](const std::vector<uint8_t>& b) {
    return std::span<const uint8_t>(b.data(), std::min<size_t>(b.size(), 4096));
  };
  TempFile a(run.tt6, ".tt6"), b(run.tt6e, ".TT6E"), c(run.full, ".full"), d(run.full, ".bin"), e(run.tt6, ".bin");
  CHECK(tt6.sniff(a.path(), head(run.tt6)));
  CHECK_FALSE(tt6e.sniff(a.path(), head(run.tt6)));
  CHECK_FALSE(full.sniff(a.path(), head(run.tt6)));
  CHECK(tt6e.sniff(b.path(), head(run.tt6e)));
  CHECK_FALSE(tt6.sniff(b.path(), head(run.tt6e)));
  CHECK(full.sniff(c.path(), head(run.full)));
  CHECK(full.sniff(d.path(), head(run.full)));  // the cookie and a whole number of records
  CHECK_FALSE(tt6.sniff(e.path(), head(run.tt6)));  // no magic, wrong extension
  // Implausible content under the right extension.
  std::vector<uint8_t> odd = be_words({0x1001, 0x60000000});
  TempFile f(odd, ".tt6");
  CHECK_FALSE(tt6.sniff(f.path(), head(odd)));
  std::vector<uint8_t> bad_branch = be_words({0x1000, 0x48000008, 0x1003});
  TempFile g(bad_branch, ".tt6");
  CHECK_FALSE(tt6.sniff(g.path(), head(bad_branch)));
  // Opening through the entries.
  auto r = full.open(c.path(), {});
  REQUIRE(r.ok());
  auto r2 = full.open(a.path(), {});
  CHECK_FALSE(r2.ok());
}

}  // namespace ttd::test
