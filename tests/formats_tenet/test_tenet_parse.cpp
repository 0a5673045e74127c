// The Tenet text syntax and line convention, on hand-written traces.
#include <doctest/doctest.h>

#include "formats/tenet/tenet_format.h"
#include "formats/tenet/tenet_reader.h"
#include "state_recording_sink.h"
#include "temp_file.h"

using namespace ttd;
using namespace ttd::test;

namespace {

struct ReadResult {
  Status status;
  StateRecordingSink sink;
};

std::unique_ptr<ReadResult> read_text(const std::string& text) {
  TempFile f(text);
  auto r = std::make_unique<ReadResult>();
  auto reader = fmt::tenet::TenetReader::open(f.path());
  if (!reader) {
    r->status = reader.error();
    return r;
  }
  r->status = reader.value()->read(r->sink, nullptr);
  return r;
}

// The error a trace gives, as "LINE: message" (the path is checked too).
std::string error_of(const std::string& text) {
  TempFile f(text);
  auto reader = fmt::tenet::TenetReader::open(f.path());
  Error e;
  if (!reader) {
    e = reader.error();
  } else {
    StateRecordingSink sink;
    Status s = reader.value()->read(sink, nullptr);
    REQUIRE_FALSE(s.ok());
    e = s.error();
  }
  CHECK(e.where == f.path());
  if (!e.offset) return e.message;
  CHECK(e.offset_is_line);
  CHECK(e.to_string() == f.path() + ":" + std::to_string(*e.offset) + ": " + e.message);
  return std::to_string(*e.offset) + ": " + e.message;
}

uint64_t reg(const MachineState& s, const char* name) {
  const ThreadState* t = s.find_thread(1);
  REQUIRE(t);
  auto idx = s.arch().find(name);
  REQUIRE(idx);
  auto v = t->regs.get_u64(*idx);
  REQUIRE_MESSAGE(v, name << " unknown");
  return *v;
}

std::vector<uint8_t> mem(const MachineState& s, uint64_t addr, size_t n) {
  std::vector<uint8_t> out(n), valid(n);
  const ProcessState* p = s.find_process(1);
  if (!p) return {};
  p->memory.read(addr, out.data(), valid.data(), n);
  for (uint8_t v : valid)
    if (!v) return {};
  return out;
}

const char* kX86Example =
    "eax=0x1,ebx=0x2,ecx=0x3,edx=0x4,ebp=0x5,esp=0xcfef8,esi=0x7,edi=0x8,eip=0x1005f90\n"
    "esp=0xcfef4,eip=0x1005f91,mr=0xcfef0:915f0001\n"
    "ebx=0x0,eip=0x1005f93\n"
    "esp=0xcfef0,eip=0x1005f94,mw=0xcfef0:00000000\n"
    "edi=0x75d283e0,eip=0x1005f9a,mr=0x1001098:e083d275\n";

}  // namespace

TEST_CASE("tenet: line n is step n, its memory belongs to step n-1") {
  auto r = read_text(kX86Example);
  REQUIRE_MESSAGE(r->status.ok(), r->status.error().to_string());
  auto& sink = r->sink;
  CHECK(sink.info.format == "tenet");
  CHECK(sink.info.arch == ArchId::I386);
  REQUIRE(sink.steps.size() == 5);
  CHECK(sink.steps[0].pc == 0x1005f90);
  CHECK(sink.steps[4].pc == 0x1005f9a);
  CHECK(sink.steps[0].size == 0);  // Tenet does not say
  CHECK(sink.steps[0].tid == 1);
  // State at EID 0: the first line.
  CHECK(reg(sink.states[0], "esp") == 0xcfef8);
  CHECK(reg(sink.states[0], "eip") == 0x1005f90);
  CHECK(mem(sink.states[0], 0xcfef0, 4).empty());
  // Line 2's registers are the state before step 1 ...
  CHECK(reg(sink.states[1], "esp") == 0xcfef4);
  CHECK(reg(sink.states[1], "ebx") == 2);
  // ... and its read was made by step 0, which saw these bytes.
  CHECK(mem(sink.states[1], 0xcfef0, 4) == std::vector<uint8_t>{0x91, 0x5f, 0x00, 0x01});
  REQUIRE(sink.accesses.size() == 3);
  CHECK(sink.accesses[0].eid == 0);
  CHECK_FALSE(sink.accesses[0].write);
  CHECK(sink.accesses[0].has_value);
  CHECK(sink.accesses[1].eid == 2);
  CHECK(sink.accesses[1].write);
  CHECK(mem(sink.states[3], 0xcfef0, 4) == std::vector<uint8_t>{0, 0, 0, 0});
  CHECK(reg(sink.states[4], "edi") == 0x75d283e0);
  CHECK(sink.accesses[2].eid == 3);
}

TEST_CASE("tenet: names in any case and order, Python-style hex") {
  auto lower = read_text("rax=0x10,rbx=0xabc,rsp=0x7fff0000,rip=0x401000\nrax=0x11,rip=0x401004\n");
  auto mixed = read_text(
      "  RIP = 0X401000 ,Rsp=7FFF_0000,rBx=0x_A_B_C,RAX=0x0010,\r\n"
      "\n"
      "   \r\n"
      "Rip=401004,rax=0x11\r\n");
  REQUIRE(lower->status.ok());
  REQUIRE_MESSAGE(mixed->status.ok(), mixed->status.error().to_string());
  REQUIRE(mixed->sink.steps.size() == 2);
  CHECK(mixed->sink.info.arch == ArchId::X86_64);
  for (size_t eid = 0; eid < 2; ++eid) CHECK(lower->sink.states[eid].digest() == mixed->sink.states[eid].digest());
  CHECK(reg(mixed->sink.states[0], "rbx") == 0xabc);
  CHECK(reg(mixed->sink.states[1], "rax") == 0x11);
}

TEST_CASE("tenet: registers beyond Tenet's set and repeated names") {
  auto r = read_text("rax=1,rflags=0x246,fs_base=0x7ffff7d8a740,XMM0=0x00112233445566778899aabbccddeeff,rip=0x1000\n"
                     "rax=2,rax=3,rip=0x1002\n");
  REQUIRE_MESSAGE(r->status.ok(), r->status.error().to_string());
  const MachineState& s0 = r->sink.states[0];
  CHECK(reg(s0, "eflags") == 0x246);
  CHECK(reg(s0, "fs_base") == 0x7ffff7d8a740);
  auto idx = s0.arch().find("xmm0");
  auto bytes = s0.find_thread(1)->regs.bytes(*idx);
  CHECK(bytes[0] == 0xff);
  CHECK(bytes[15] == 0x00);
  CHECK(reg(r->sink.states[1], "rax") == 3);  // the later value wins, as in Tenet
}

TEST_CASE("tenet: registers left out of the first line are zero, as in Tenet") {
  auto r = read_text("rsp=0x7000,rip=0x1000\nrip=0x1001\n");
  REQUIRE(r->status.ok());
  CHECK(reg(r->sink.states[0], "rax") == 0);
  CHECK(reg(r->sink.states[0], "r15") == 0);
  CHECK(reg(r->sink.states[0], "rsp") == 0x7000);
  // Registers Tenet does not track stay unknown.
  auto flags = r->sink.states[0].arch().find("eflags");
  CHECK_FALSE(r->sink.states[0].find_thread(1)->regs.valid(*flags));
  bool told = false;
  for (auto& [k, v] : r->sink.info.properties)
    if (k == "zero on the first line") {
      told = true;
      CHECK(v.find("rax") != std::string::npos);
      CHECK(v.find("rsp") == std::string::npos);
    }
  CHECK(told);
}

TEST_CASE("tenet: read and write of the same bytes, mrw, first-line memory") {
  auto r = read_text(
      "rax=0x2000,rip=0x1000,mr=0x3000:aabb\n"               // memory before the trace
      "rip=0x1004,mr=0x2000:05000000,mw=0x2000:05000000\n"  // inc dword [rax]: value read unknown
      "rip=0x1008,mrw=0x2004:0700\n"
      "rip=0x100c,mr=0x2010:01,mw=0x2011:02\n");
  REQUIRE_MESSAGE(r->status.ok(), r->status.error().to_string());
  auto& sink = r->sink;
  CHECK(mem(sink.states[0], 0x3000, 2) == std::vector<uint8_t>{0xaa, 0xbb});
  // Line 1's memory is initial state, not an access of any step.
  REQUIRE(sink.accesses.size() == 6);
  CHECK(sink.accesses[0].eid == 0);
  CHECK_FALSE(sink.accesses[0].write);
  CHECK_FALSE(sink.accesses[0].has_value);  // overlaps the write on the same line
  CHECK(sink.accesses[1].write);
  CHECK(mem(sink.states[1], 0x2000, 4) == std::vector<uint8_t>{5, 0, 0, 0});
  CHECK(sink.accesses[2].eid == 1);
  CHECK_FALSE(sink.accesses[2].write);
  CHECK_FALSE(sink.accesses[2].has_value);  // mrw: bytes are after the write
  CHECK(sink.accesses[3].write);
  CHECK(mem(sink.states[2], 0x2004, 2) == std::vector<uint8_t>{7, 0});
  CHECK(sink.accesses[4].eid == 2);
  CHECK(sink.accesses[4].has_value);  // adjacent, not overlapping
  CHECK(mem(sink.states[3], 0x2010, 2) == std::vector<uint8_t>{1, 2});
}

TEST_CASE("tenet: architectures from register names") {
  CHECK(read_text("EAX=1,EIP=100\n")->sink.info.arch == ArchId::I386);
  auto arm = read_text("R0=1,R1=2,SP=7000,LR=0,PC=8000\nR0=5,PC=8004,mw=6ffc:01020304\n");
  REQUIRE(arm->status.ok());
  CHECK(arm->sink.info.arch == ArchId::Arm);
  CHECK(reg(arm->sink.states[1], "r0") == 5);
  CHECK(reg(arm->sink.states[0], "r12") == 0);
  auto a64 = read_text("x0=1,x30=0x40,sp=0x7000,pc=0x400000\n");
  REQUIRE(a64->status.ok());
  CHECK(a64->sink.info.arch == ArchId::AArch64);
  CHECK(reg(a64->sink.states[0], "lr") == 0x40);
}

TEST_CASE("tenet: ppc32 (ttd's extension) from nip/msr/cr/ctr/xer or r16..r31, big-endian values") {
  auto ppc = read_text("r0=0x1,r1=0x7000,r31=0x12345678,lr=0x100,msr=0x2000,pc=0x10000100\n"
                       "r3=0x5,pc=0x10000104,mw=0x6ff0:0a0b0c0d\n");
  REQUIRE_MESSAGE(ppc->status.ok(), ppc->status.error().to_string());
  CHECK(ppc->sink.info.arch == ArchId::Ppc32);
  CHECK(reg(ppc->sink.states[0], "r31") == 0x12345678);
  CHECK(reg(ppc->sink.states[0], "pc") == 0x10000100);
  CHECK(reg(ppc->sink.states[1], "r3") == 5);
  CHECK(mem(ppc->sink.states[1], 0x6ff0, 4) == std::vector<uint8_t>{0x0a, 0x0b, 0x0c, 0x0d});
  // Registers outside Tenet's sets are unknown until written, not zero.
  const ThreadState* t0 = ppc->sink.states[0].find_thread(1);
  REQUIRE(t0);
  CHECK_FALSE(t0->regs.get_u64(*ppc->sink.states[0].arch().find("r2")));
  CHECK(read_text("r20=1,pc=0x100\n")->sink.info.arch == ArchId::Ppc32);
  CHECK(read_text("CTR=1,PC=0x100\n")->sink.info.arch == ArchId::Ppc32);
  // nip (what the writer calls the pc) alone: a trace without register values.
  auto pcs = read_text("nip=0x100\nnip=0x104\n");
  REQUIRE_MESSAGE(pcs->status.ok(), pcs->status.error().to_string());
  CHECK(pcs->sink.info.arch == ArchId::Ppc32);
  REQUIRE(pcs->sink.steps.size() == 2);
  CHECK(pcs->sink.steps[1].pc == 0x104);
  // r0..r15 with sp/lr/pc stay arm.
  CHECK(read_text("r15=1,r0=2,pc=0x100\n")->sink.info.arch == ArchId::Arm);
}

TEST_CASE("tenet: bad input names the file and the line") {
  const std::string good = "rax=0x1,rip=0x1000\n";
  CHECK(error_of(good + good + "hello world\n") == "3: entry 'hello world' is not NAME=VALUE");
  CHECK(error_of(good + "rax=0xzz,rip=0x1004\n") == "2: not a hex number for 64-bit register rax: '0xzz'");
  CHECK(error_of(good + "foo=0x1,rip=0x1004\n") == "2: unknown register 'foo' for x86_64");
  CHECK(error_of(good + "rip=0x1004,mr=0x1000:abc\n") == "2: odd number of hex digits in the bytes of mr: 'abc'");
  CHECK(error_of(good + "rip=0x1004,mw=0x1000:zz\n") == "2: not a hex number in the bytes of mw: 'zz'");
  CHECK(error_of(good + "rip=0x1004,mw=0x1000\n") == "2: memory entry 'mw=0x1000' is not ADDRESS:HEXBYTES");
  CHECK(error_of(good + "rip=0x1004,mrw=q:00\n") == "2: not a hex number for the address of mrw: 'q'");
  CHECK(error_of(good + "rax=,rip=0x1004\n") == "2: no hex digits for 64-bit register rax: ''");
  CHECK(error_of(good + "rax=0x1_,rip=0x1004\n") == "2: not a hex number for 64-bit register rax: '0x1_'");
  CHECK(error_of(good + "rax=0x10000000000000000,rip=0x1004\n") ==
        "2: value too large for 64-bit register rax: '0x10000000000000000'");
  CHECK(error_of("eax=0x100000000,eip=0x1000\n") ==
        "1: value too large for 32-bit register eax: '0x100000000'");
  CHECK(error_of(good + "\n\nrax=0x2\n") == "4: no rip= entry: every Tenet line is one executed instruction and must "
                                            "give its address");
  CHECK(error_of(good + "=5,rip=0x1004\n") == "2: entry '=5' has no name before '='");
  CHECK(error_of("foo=1,bar=2\n") ==
        "1: cannot tell the architecture from the register names: expected rip/rax.. (x86-64), eip/eax.. (i386), "
        "r0..r12/sp/lr/pc (arm), x0..x30 (aarch64) or nip/msr/cr/ctr/xer/r16..r31 (ppc32)");
  CHECK(error_of("") == "empty file: a Tenet trace has one line per executed instruction");
  CHECK(error_of("\n  \n") == "empty file: a Tenet trace has one line per executed instruction");
  CHECK(error_of(good + "rip=0x1004,mr=0xffffffffffffffff:0102\n") ==
        "2: mr at '0xffffffffffffffff' runs past the end of the address space");
}

TEST_CASE("tenet: steps before a bad line are delivered") {
  auto r = read_text("rax=1,rip=0x1000\nrip=0x1001\nrip=0x1002,rax=0xq\n");
  REQUIRE_FALSE(r->status.ok());
  CHECK(*r->status.error().offset == 3);
  CHECK(r->sink.steps.size() == 2);
  CHECK_FALSE(r->sink.ended);
}

namespace {

const std::string* find_property(const fmt::TraceInfo& info, const std::string& key) {
  for (const auto& [k, v] : info.properties)
    if (k == key) return &v;
  return nullptr;
}

}  // namespace

TEST_CASE("tenet: a trace cut anywhere is read whole or reported as possibly cut") {
  // Every prefix of a trace: one that ends on a newline is a whole trace of
  // fewer lines; any other ends in a cut line, which must be refused as
  // truncated (when it no longer parses) or kept with a `truncation`
  // property (a cut inside a value still parses) -- never passed off silently.
  const std::string text =
      "rax=0x1,rbx=0x2,rcx=0x3,rdx=0x4,rbp=0x5,rsp=0x6,rsi=0x7,rdi=0x8,rip=0x1000\n"
      "rax=0x1234,rip=0x1004,mr=0x2000:41424344\n"
      "rbx=0x99,rip=0x1008,mw=0x2004:00ff\n";
  size_t lines_before = 0, refused = 0, noted = 0;
  for (size_t n = 1; n <= text.size(); ++n) {
    CAPTURE(n);
    std::string prefix = text.substr(0, n);
    auto r = read_text(prefix);
    if (prefix.back() == '\n') {
      ++lines_before;
      REQUIRE_MESSAGE(r->status.ok(), r->status.error().to_string());
      CHECK(r->sink.steps.size() == lines_before);
      CHECK(find_property(r->sink.info, "truncation") == nullptr);
      continue;
    }
    if (!r->status.ok()) {
      ++refused;
      // Past the first line (which open() checks for the architecture) the
      // error says what happened.
      if (lines_before > 0)
        CHECK_MESSAGE(r->status.error().message.find("trace truncated") != std::string::npos,
                      r->status.error().to_string());
      continue;
    }
    ++noted;
    const std::string* note = find_property(r->sink.info, "truncation");
    REQUIRE_MESSAGE(note != nullptr, prefix);
    CHECK(note->find("line " + std::to_string(lines_before + 1)) != std::string::npos);
    CHECK(r->sink.steps.size() == lines_before + 1);
    CHECK(r->sink.ended);
  }
  CHECK(refused > 0);
  CHECK(noted > 0);
  // A last line lacking only its newline is kept whole, with the note.
  auto whole = read_text(text.substr(0, text.size() - 1));
  REQUIRE(whole->status.ok());
  CHECK(whole->sink.steps.size() == 3);
  CHECK(find_property(whole->sink.info, "truncation") != nullptr);
}

TEST_CASE("tenet: progress and cancel") {
  std::string text;
  for (int i = 0; i < 1000; ++i) text += "rax=" + std::to_string(i) + ",rip=0x" + std::to_string(1000 + i) + "\n";
  TempFile f(text);
  auto reader = fmt::tenet::TenetReader::open(f.path());
  REQUIRE(reader.ok());
  StateRecordingSink sink;
  uint64_t done = 0, total = 0;
  REQUIRE(reader.value()->read(sink, [&](uint64_t d, uint64_t t) { done = d; total = t; return true; }).ok());
  CHECK(done == text.size());
  CHECK(total == text.size());
  StateRecordingSink sink2;
  Status s = reader.value()->read(sink2, [](uint64_t, uint64_t) { return false; });
  REQUIRE_FALSE(s.ok());
  CHECK(s.error().message == "reading cancelled");
}

TEST_CASE("tenet: registry entry sniffs Tenet text only") {
  fmt::FormatEntry e = fmt::tenet_format();
  CHECK(e.name == "tenet");
  auto head = [](const std::string& s) { return std::vector<uint8_t>(s.begin(), s.end()); };
  CHECK(e.sniff("x", head("rax=0x1,rip=0x1000\nrip=0x1001\n")));
  CHECK(e.sniff("x", head("\nR0=0,PC=8000\n")));
  CHECK_FALSE(e.sniff("x", head("rax=0x1,rbx=0x2\n")));  // no instruction pointer
  CHECK_FALSE(e.sniff("x", head("hello world\n")));
  CHECK_FALSE(e.sniff("x", head("key=value\n")));
  CHECK_FALSE(e.sniff("x", head(std::string("rip=0x1\0\1\2\n", 10))));
  CHECK_FALSE(e.sniff("x", head("rip=0x1000")));  // first line does not end in the head
  TempFile f("rax=0x1,rip=0x1000\n");
  CHECK(e.open(f.path(), fmt::ReaderOptions{}).ok());
}
