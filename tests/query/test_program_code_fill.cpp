// Memory reads that fall back on the program's code bytes
// (engine/query/program_code_fill.h): the call program is written without
// its code pages; an ELF (made here) holds its code and, in a second
// executable segment, the page under the stack top. Unknown bytes in
// executable file bytes are filled from the ELF, known ones are left alone,
// bytes outside every executable segment stay unknown, and a byte a traced
// step wrote before the position is never taken from the file.
#include <doctest/doctest.h>

#include <elf.h>

#include <cstring>
#include <fstream>
#include <vector>

#include "call_program.h"
#include "engine/query/memory_history.h"
#include "engine/query/program_code_fill.h"
#include "query_fixture.h"
#include "tests/support/elf64_header.h"

using namespace ttd;
using namespace ttd::query;

namespace {

constexpr uint64_t kStackPage = test::kStackTop - 0x1000;

// Two R-X(-W) segments: 0x400 bytes of 0xcc at kMain (the pcs the trace
// runs: enough for the program to fit) and 0x1000 bytes of 0x5a over the
// stack's top page.
void write_two_segment_elf(const std::string& path) {
  Elf64_Ehdr eh = ttd::test_elf::header64(EM_X86_64);
  eh.e_entry = test::kMain;
  eh.e_phnum = 2;
  Elf64_Phdr ph[2]{};
  const uint64_t offsets[2] = {0x1000, 0x2000}, vaddrs[2] = {test::kMain, kStackPage}, sizes[2] = {0x400, 0x1000};
  for (int i = 0; i < 2; ++i) {
    ph[i].p_type = PT_LOAD;
    ph[i].p_flags = PF_R | PF_X | (i == 1 ? PF_W : 0);
    ph[i].p_offset = offsets[i];
    ph[i].p_vaddr = ph[i].p_paddr = vaddrs[i];
    ph[i].p_filesz = ph[i].p_memsz = sizes[i];
    ph[i].p_align = 0x1000;
  }
  std::vector<char> file(0x3000, 0);
  std::memcpy(file.data(), &eh, sizeof eh);
  std::memcpy(file.data() + sizeof eh, ph, sizeof ph);
  std::memset(file.data() + 0x1000, 0xcc, 0x400);
  std::memset(file.data() + 0x2000, 0x5a, 0x1000);
  std::ofstream(path, std::ios::binary).write(file.data(), std::streamsize(file.size()));
}

}  // namespace

TEST_CASE("program code fill: unknown executable bytes from the ELF, unless the trace wrote them first") {
  test::FileFixture file("codefill.ucir");
  REQUIRE(test::write_call_program(file.path, {4, false, 0}).ok());
  const std::string elf = test::temp_path("codefill.elf");
  write_two_segment_elf(elf);
  OpenOptions o;
  o.keyframe_interval = 64;
  o.program = elf;
  auto opened = Trace::open(file.path, o);
  REQUIRE_MESSAGE(opened.ok(), opened.error().to_string());
  const Trace& t = **opened;
  REQUIRE(t.program() != nullptr);
  const uint64_t pid = t.threads().front().pid;

  // Code: unknown bytes filled, a known one kept, the byte past the
  // segment's file bytes left unknown.
  std::vector<uint8_t> data(0x10, 0), known(0x10, 0);
  data[1] = 0x77;
  known[1] = 1;
  CHECK(fill_code_from_program(t, 3, pid, test::kMain + 0x3f8, data.data(), known.data(), data.size()) == 7);
  CHECK(data[0] == 0xcc);
  CHECK(data[1] == 0x77);
  CHECK(data[7] == 0xcc);
  CHECK(known[7] == 1);
  CHECK(known[8] == 0);  // kMain + 0x400: outside every segment
  CHECK(data[8] == 0);

  // The stack's top page is executable file bytes too; the first traced
  // write into it makes the file's bytes stale from the next step on.
  MemoryQuery q;
  q.range = {kStackPage, 0x1000};
  q.kind = AccessFilter::Write;
  q.start.window = {0, t.step_count()};
  auto writes = find_memory_accesses(t, q, 1);
  REQUIRE(writes.ok());
  REQUIRE(writes->size() == 1);
  const MemoryAccess& w = writes->front();
  std::vector<uint8_t> slot(w.size, 0), slot_known(w.size, 0);
  CHECK(fill_code_from_program(t, w.eid, pid, w.addr, slot.data(), slot_known.data(), slot.size()) == w.size);
  CHECK(slot[0] == 0x5a);
  std::fill(slot_known.begin(), slot_known.end(), 0);
  std::fill(slot.begin(), slot.end(), 0);
  CHECK(fill_code_from_program(t, w.eid + 1, pid, w.addr, slot.data(), slot_known.data(), slot.size()) == 0);
  CHECK(slot_known[0] == 0);
  CHECK(slot[0] == 0);
  // Another process's writes do not count; no program, no fill.
  CHECK(fill_code_from_program(t, w.eid + 1, pid + 1000, w.addr, slot.data(), slot_known.data(), slot.size()) ==
        w.size);
  auto bare = file.open(64);
  REQUIRE(bare.ok());
  std::fill(slot_known.begin(), slot_known.end(), 0);
  CHECK(fill_code_from_program(**bare, 0, pid, test::kMain, slot.data(), slot_known.data(), slot.size()) == 0);
  std::remove(elf.c_str());
}
