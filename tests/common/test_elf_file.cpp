// elf/elf_file.h: the one ELF reader. Its refusals name the file and what
// is wrong; headers and bytes outside the file are errors, never reads.
#include <doctest/doctest.h>
#include <elf.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "elf/elf_sections.h"
#include "tests/support/elf64_header.h"

using namespace ttd;

namespace {

std::string temp_file(const std::string& tag, const std::vector<uint8_t>& bytes) {
  std::string p = (std::filesystem::temp_directory_path() / ("ttd_test_elf_" + tag + "_" + std::to_string(getpid()))).string();
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return p;
}

// A 64-bit little-endian x86-64 executable: header, one PT_LOAD of `code`.
std::vector<uint8_t> tiny_elf(const std::vector<uint8_t>& code) {
  Elf64_Ehdr h = ttd::test_elf::header64(EM_X86_64);
  h.e_entry = 0x401000;
  h.e_phnum = 1;
  Elf64_Phdr ph{};
  ph.p_type = PT_LOAD;
  ph.p_flags = PF_R | PF_X;
  ph.p_offset = sizeof h + sizeof ph;
  ph.p_vaddr = 0x401000;
  ph.p_filesz = ph.p_memsz = code.size();
  std::vector<uint8_t> b(sizeof h + sizeof ph);
  std::memcpy(b.data(), &h, sizeof h);
  std::memcpy(b.data() + sizeof h, &ph, sizeof ph);
  b.insert(b.end(), code.begin(), code.end());
  return b;
}

}  // namespace

TEST_CASE("an ELF file: header, program headers, segment bytes, from a file and from memory") {
  std::vector<uint8_t> code = {0x90, 0x90, 0xc3};
  std::vector<uint8_t> bytes = tiny_elf(code);
  std::string p = temp_file("ok", bytes);
  for (int from_memory = 0; from_memory < 2; ++from_memory) {
    CAPTURE(from_memory);
    auto f = from_memory ? elf::ElfFile::from_bytes(p, bytes) : elf::ElfFile::open(p, "the program");
    REQUIRE_MESSAGE(f.ok(), f.error().to_string());
    CHECK(f->machine() == EM_X86_64);
    CHECK(f->is64());
    CHECK(f->little_endian());
    CHECK(f->header().e_entry == 0x401000);
    CHECK(f->file_size() == bytes.size());
    auto ph = f->program_headers();
    REQUIRE(ph.ok());
    REQUIRE(ph->size() == 1);
    auto seg = f->read((*ph)[0].p_offset, (*ph)[0].p_filesz, "segment");
    REQUIRE(seg.ok());
    CHECK(*seg == code);
    // Past the end: an error naming the caller's `where`, not a short read.
    auto past = f->read(bytes.size() - 1, 2, "program header 0 (file offset 9)");
    REQUIRE_FALSE(past.ok());
    CHECK(past.error().where == p);
    CHECK(past.error().message.find("program header 0 (file offset 9)") != std::string::npos);
    CHECK(past.error().message.find("past the end") != std::string::npos);
    CHECK_FALSE(f->read(~0ull, 2, "x").ok());  // offset + size would wrap
  }
  std::filesystem::remove(p);
}

TEST_CASE("refusals name the file and what is wrong") {
  auto missing = elf::ElfFile::open("/nonexistent/ttd-no-such-elf", "the program");
  REQUIRE_FALSE(missing.ok());
  CHECK(missing.error().where == "/nonexistent/ttd-no-such-elf");
  CHECK(missing.error().message.find("cannot open the program") != std::string::npos);

  std::string dir = std::filesystem::temp_directory_path().string();
  auto d = elf::ElfFile::open(dir, "instrumented binary");
  REQUIRE_FALSE(d.ok());
  CHECK(d.error().message == "instrumented binary is a directory, not a file");

  std::string text = temp_file("text", {'#', '!', '/', 'b', 'i', 'n', '\n'});
  auto t = elf::ElfFile::open(text, "the program");
  REQUIRE_FALSE(t.ok());
  CHECK(t.error().message == "the program is not an ELF file");
  std::vector<uint8_t> text_bytes = {'n', 'o', 't', ' ', 'E', 'L', 'F'};
  CHECK_FALSE(elf::ElfFile::from_bytes("mem", text_bytes).ok());
  std::filesystem::remove(text);
}

// elf/elf_sections.h: the section, symbol and relocation walks XRay's map
// and debuginfo's symbol table share. The test binary itself is the ELF
// with sections: it is built with a .symtab, and as a PIE its
// .init_array words are filled in by RELATIVE relocations.
TEST_CASE("ELF sections: a section by name, the symbol table, relocated words") {
  auto f = elf::ElfFile::open("/proc/self/exe", "the test binary");
  REQUIRE_MESSAGE(f.ok(), f.error().to_string());

  auto text = elf::find_section(*f, ".text");
  REQUIRE(text.ok());
  REQUIRE(text->has_value());
  CHECK_FALSE((*text)->bytes.empty());
  auto none = elf::find_section(*f, "xray_instr_map");
  REQUIRE(none.ok());
  CHECK_FALSE(none->has_value());

  // tests/common/main.cpp defines main.
  bool found_main = false;
  for (const elf::Symbol& s : elf::symbols(*f))
    if (s.name == "main" && s.type == STT_FUNC && s.shndx != SHN_UNDEF && s.value != 0) found_main = true;
  CHECK(found_main);

  auto init = elf::find_section(*f, ".init_array");
  REQUIRE(init.ok());
  if (init->has_value() && f->header().e_type == ET_DYN && (f->machine() == EM_X86_64 || f->machine() == EM_AARCH64)) {
    const elf::Section& s = **init;
    auto words = elf::relocated_words(*f, s);
    CHECK(words.size() == s.bytes.size() / 8);
    for (const auto& [addr, value] : words) {
      CHECK(addr >= s.address);
      CHECK(addr < s.address + s.bytes.size());
      CHECK(value != 0);  // a function's link-time address
    }
  }

  // A file without a section table: nothing found, no error.
  std::string p = temp_file("nosections", tiny_elf({0xc3}));
  auto bare = elf::ElfFile::open(p, "the program");
  REQUIRE(bare.ok());
  auto missing = elf::find_section(*bare, ".text");
  REQUIRE(missing.ok());
  CHECK_FALSE(missing->has_value());
  CHECK(elf::symbols(*bare).empty());
  std::filesystem::remove(p);
}
