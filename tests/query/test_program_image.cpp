// Code bytes from the program's ELF (issue 18): the x86 call program
// written without its code pages finds its calls only by guesses, and the
// walk says it is incomplete; with an ELF of the same code (written here,
// at test time) every pc is classified and nothing is reported missing.
// Hostile ELFs (wrong machine, a segment past the end of the file, not an
// ELF at all) are refused with the file's name.
#include <doctest/doctest.h>

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "call_program.h"
#include "engine/program_image.h"
#include "engine/query/calls.h"
#include "query_fixture.h"
#include "tests/support/elf64_header.h"

using namespace ttd;
using namespace ttd::query;

namespace {

// The code of tests/query/call_program.h (main, f, g) at 0x400000.
std::vector<uint8_t> call_program_code() {
  std::vector<uint8_t> code(0x206, 0x90);
  const uint8_t main_[] = {0xe8, 0xfb, 0x00, 0x00, 0x00, 0xeb, 0xf9};
  const uint8_t f[] = {0xb8, 0x11, 0x00, 0x00, 0x00, 0xe8, 0xf6, 0x00, 0x00, 0x00, 0xc3};
  const uint8_t g[] = {0xb8, 0x07, 0x00, 0x00, 0x00, 0xc3};
  std::memcpy(&code[0], main_, sizeof main_);
  std::memcpy(&code[0x100], f, sizeof f);
  std::memcpy(&code[0x200], g, sizeof g);
  return code;
}

// A static ELF64 with one PT_LOAD segment; filesz_extra inflates p_filesz
// past the end of the file.
// pie: an ET_DYN whose segment and entry sit at vaddr (linked low, run at
// kMain).
void write_elf(const std::string& path, uint16_t machine, const std::vector<uint8_t>& code, uint64_t filesz_extra = 0,
               uint64_t vaddr = test::kMain, bool pie = false) {
  Elf64_Ehdr eh = ttd::test_elf::header64(machine);
  eh.e_type = pie ? ET_DYN : ET_EXEC;
  eh.e_entry = pie ? vaddr : test::kMain;
  eh.e_phnum = 1;
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_X;
  ph.p_offset = 0x1000;
  ph.p_vaddr = ph.p_paddr = vaddr;
  ph.p_filesz = code.size() + filesz_extra;
  ph.p_memsz = code.size() + filesz_extra;
  ph.p_align = 0x1000;
  std::vector<char> file(0x1000 + code.size(), 0);
  std::memcpy(file.data(), &eh, sizeof eh);
  std::memcpy(file.data() + sizeof eh, &ph, sizeof ph);
  std::memcpy(file.data() + 0x1000, code.data(), code.size());
  std::ofstream(path, std::ios::binary).write(file.data(), std::streamsize(file.size()));
}

struct Walk {
  uint64_t calls = 0;
  CallStats stats;
};

Walk walk(std::shared_ptr<const Trace> t) {
  CallQuery q;
  q.window = {0, t->step_count()};
  auto w = CallWalker::create(t, q);
  REQUIRE(w.ok());
  Walk out;
  for (;;) {
    auto c = (*w)->next();
    REQUIRE(c.ok());
    if (!*c) break;
    ++out.calls;
  }
  out.stats = (*w)->stats();
  return out;
}

}  // namespace

TEST_CASE("calls without code bytes report incomplete, --program supplies the bytes") {
  test::FileFixture file("nocode.ucir");
  REQUIRE(test::write_call_program(file.path, {40, false, 0}).ok());
  const std::string elf = test::temp_path("prog.elf");
  write_elf(elf, EM_X86_64, call_program_code());

  auto bare = file.open(64);
  REQUIRE_MESSAGE(bare.ok(), bare.error().to_string());
  CHECK((*bare)->program() == nullptr);
  Walk guessed = walk(*bare);
  CHECK(guessed.stats.unclassified_steps > 0);
  auto why = incomplete_reason(**bare, guessed.stats);
  REQUIRE(why.has_value());
  CHECK(why->find("--program") != std::string::npos);
  CHECK(incomplete_json(**bare, guessed.stats).find("\"unclassified_steps\":") != std::string::npos);

  OpenOptions o;
  o.keyframe_interval = 64;
  o.program = elf;
  auto with = Trace::open(file.path, o);
  REQUIRE_MESSAGE(with.ok(), with.error().to_string());
  REQUIRE((*with)->program() != nullptr);
  CHECK((*with)->code_source().find(elf) != std::string::npos);
  Walk full = walk(*with);
  CHECK(full.calls == 80);
  CHECK(full.stats.unclassified_steps == 0);
  CHECK(full.stats.pcs_unknown == 0);
  CHECK(full.stats.pcs_from_program > 0);
  CHECK_FALSE(incomplete_reason(**with, full.stats).has_value());
  CHECK(incomplete_json(**with, full.stats).empty());
  std::remove(elf.c_str());
}

TEST_CASE("a --program that does not fit the trace is refused by name") {
  test::FileFixture file("fit.ucir");
  REQUIRE(test::write_call_program(file.path, {4, false, 0}).ok());
  auto open_with = [&](const std::string& program) {
    OpenOptions o;
    o.program = program;
    return Trace::open(file.path, o);
  };
  const std::string elf = test::temp_path("bad.elf");
  auto refused = [&](const char* what) {
    auto t = open_with(elf);
    REQUIRE_FALSE(t.ok());
    const std::string msg = t.error().to_string();
    CAPTURE(msg);
    CHECK(msg.find(elf) != std::string::npos);
    CHECK(msg.find(what) != std::string::npos);
  };
  write_elf(elf, EM_AARCH64, call_program_code());
  refused("machine");
  write_elf(elf, EM_X86_64, call_program_code(), 1ull << 40);
  refused("past the end of the file");
  write_elf(elf, EM_X86_64, call_program_code(), 0, 0x800000);  // code where the trace never runs
  refused("none of the pcs the trace runs");
  std::ofstream(elf) << "not an ELF";
  refused("not an ELF");
  auto missing = open_with(elf + ".missing");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().to_string().find(".missing") != std::string::npos);
  std::remove(elf.c_str());
}

// Issue 18: a PIE linked at 0x1000 that the trace runs at kMain. The
// program's entry is the trace's first pc, so the image is placed at the
// bias between them (what `ttd serve` answers qOffsets with, so lldb needs
// no --slide), and serves the code bytes there. A PIE whose entry the
// trace does not run stays unplaced and is refused, as before.
TEST_CASE("a PIE --program is placed where the trace runs its entry") {
  test::FileFixture file("pie.ucir");
  REQUIRE(test::write_call_program(file.path, {40, false, 0}).ok());
  const std::string elf = test::temp_path("pie.elf");
  write_elf(elf, EM_X86_64, call_program_code(), 0, 0x1000, true);
  OpenOptions o;
  o.keyframe_interval = 64;
  o.program = elf;
  auto t = Trace::open(file.path, o);
  REQUIRE_MESSAGE(t.ok(), t.error().to_string());
  const ProgramImage* img = (*t)->program();
  REQUIRE(img != nullptr);
  CHECK(img->position_independent());
  CHECK(img->bias() == test::kMain - 0x1000);
  uint8_t first = 0;
  CHECK(img->read(test::kMain, &first, 1) == 1);
  CHECK(first == 0xe8);  // main's call, read through the bias
  CHECK_FALSE(img->executable(0x1000));  // the link address is not where it runs
  Walk full = walk(*t);
  CHECK(full.calls == 80);
  CHECK(full.stats.unclassified_steps == 0);

  write_elf(elf, EM_X86_64, call_program_code(), 0, 0x1080, true);  // entry at no pc's page offset
  auto unplaced = Trace::open(file.path, o);
  REQUIRE_FALSE(unplaced.ok());
  CHECK(unplaced.error().to_string().find("position-independent") != std::string::npos);
  std::remove(elf.c_str());
}
