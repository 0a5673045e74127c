// elf/elf_program.h: what loaders check in an executable's program headers.
// Each refusal names the file and what is wrong; one about a program header
// gives its index and file offset.
#include <doctest/doctest.h>
#include <elf.h>
#include <unistd.h>

#include <array>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "elf/elf_file.h"
#include "elf/elf_program.h"
#include "tests/support/elf64_header.h"

using namespace ttd;

namespace {

constexpr std::array<uint16_t, 2> kMachines{EM_X86_64, EM_AARCH64};
constexpr const char* kSupported = "x86-64 and aarch64 only";

// A 64-bit x86-64 executable: header, then PT_INTERP and PT_LOAD headers,
// then the interpreter path and the code. Callers break one field.
struct TinyElf {
  Elf64_Ehdr h{};
  Elf64_Phdr interp{}, load{};
  std::string interp_path = "/lib/ld-test.so.1";
  std::vector<uint8_t> code = {0x90, 0xc3};

  TinyElf() {
    h = ttd::test_elf::header64(EM_X86_64);
    h.e_entry = 0x401000;
    h.e_phnum = 2;
    interp.p_type = PT_INTERP;
    interp.p_offset = sizeof h + 2 * sizeof(Elf64_Phdr);
    interp.p_filesz = interp_path.size() + 1;
    load.p_type = PT_LOAD;
    load.p_flags = PF_R | PF_X;
    load.p_offset = interp.p_offset + interp.p_filesz;
    load.p_vaddr = 0x401000;
    load.p_filesz = load.p_memsz = code.size();
  }
  std::string write(const std::string& tag) const {
    std::vector<uint8_t> b(sizeof h + 2 * sizeof(Elf64_Phdr));
    std::memcpy(b.data(), &h, sizeof h);
    std::memcpy(b.data() + sizeof h, &interp, sizeof interp);
    std::memcpy(b.data() + sizeof h + sizeof interp, &load, sizeof load);
    b.insert(b.end(), interp_path.begin(), interp_path.end());
    b.push_back(0);
    b.insert(b.end(), code.begin(), code.end());
    std::string p = (std::filesystem::temp_directory_path() /
                     ("ttd_test_elf_program_" + tag + "_" + std::to_string(getpid()))).string();
    std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(b.data()), std::streamsize(b.size()));
    return p;
  }
};

// The error of the first check that refuses the file, as text.
std::string refusal(const TinyElf& e, const std::string& tag) {
  const std::string p = e.write(tag);
  std::string out;
  auto f = elf::ElfFile::open(p, "program");
  if (!f) out = f.error().to_string();
  else if (auto st = elf::require_executable(*f, kMachines, kSupported); !st) out = st.error().to_string();
  else if (auto l = elf::load_segments(*f); !l) out = l.error().to_string();
  else if (auto i = elf::interpreter(*f); !i) out = i.error().to_string();
  std::filesystem::remove(p);
  CHECK(out.find(p) != std::string::npos);  // every refusal names the file
  return out;
}

}  // namespace

TEST_CASE("a good executable: its load segments and interpreter") {
  TinyElf e;
  const std::string p = e.write("good");
  auto f = elf::ElfFile::open(p, "program");
  REQUIRE(f.ok());
  CHECK(elf::require_executable(*f, kMachines, kSupported).ok());
  auto loads = elf::load_segments(*f);
  REQUIRE(loads.ok());
  REQUIRE(loads->size() == 1);
  CHECK((*loads)[0].index == 1);
  CHECK((*loads)[0].header.p_vaddr == 0x401000);
  auto interp = elf::interpreter(*f);
  REQUIRE(interp.ok());
  CHECK(*interp == "/lib/ld-test.so.1");
  std::filesystem::remove(p);
}

TEST_CASE("refusals: class, machine, type, program headers, segments, interpreter") {
  TinyElf e;
  e.h.e_ident[EI_CLASS] = ELFCLASS32;
  CHECK(refusal(e, "class").find("unsupported architecture: 32-bit ELF (x86-64 and aarch64 only)") != std::string::npos);
  e = TinyElf();
  e.h.e_machine = EM_RISCV;
  CHECK(refusal(e, "riscv").find("unsupported architecture: riscv (x86-64 and aarch64 only)") != std::string::npos);
  e = TinyElf();
  e.h.e_type = ET_REL;
  CHECK(refusal(e, "rel").find("not an executable (ELF type 1)") != std::string::npos);
  e = TinyElf();
  e.h.e_phnum = 0;
  CHECK(refusal(e, "nophdr").find("at byte 56: the file has no program headers") != std::string::npos);
  e = TinyElf();
  e.load.p_filesz = e.load.p_memsz = 1ull << 40;
  CHECK(refusal(e, "past").find("at byte 120: program header 1: PT_LOAD segment bytes run past the end of the file") !=
        std::string::npos);
  e = TinyElf();
  e.load.p_memsz = 1;
  CHECK(refusal(e, "memsz").find("program header 1: PT_LOAD segment has more file bytes than memory bytes") !=
        std::string::npos);
  e = TinyElf();
  e.load.p_vaddr = ~0ull - 1;
  CHECK(refusal(e, "wrap").find("program header 1: PT_LOAD segment wraps the address space") != std::string::npos);
  e = TinyElf();
  e.interp.p_filesz = 5000;
  CHECK(refusal(e, "interp").find("at byte 64: program header 0: bad PT_INTERP (program interpreter) entry") !=
        std::string::npos);
  e = TinyElf();
  e.interp.p_offset = 1ull << 40;
  CHECK(refusal(e, "interp_off").find("program header 0: PT_INTERP (program interpreter) entry: bytes run past the end") !=
        std::string::npos);
}
