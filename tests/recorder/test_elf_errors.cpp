// What the recorder says about programs it cannot run.
#include <doctest/doctest.h>
#include <elf.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "tests/recorder/recording_support.h"
#include "tests/support/elf64_header.h"
#include "tools/recorder/elf_image.h"
#include "tools/recorder/recorder.h"

using namespace ttd;
using namespace ttd::rec;

namespace {

std::string write_temp(const std::string& tag, const std::vector<uint8_t>& bytes) {
  std::string p = test::temp_trace(tag) + ".bin";
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return p;
}

// A minimal 64-bit ELF header (no program headers) with the given fields.
std::vector<uint8_t> elf_header(uint8_t elf_class, uint16_t machine) {
  Elf64_Ehdr h = ttd::test_elf::header64(machine, elf_class);
  std::vector<uint8_t> b(sizeof h);
  std::memcpy(b.data(), &h, sizeof h);
  return b;
}

std::string record_error(const std::vector<std::string>& argv, std::string output = "") {
  RecordOptions o = test::capture_options(argv, output.empty() ? test::temp_trace("err") : output);
  auto r = record(o);
  // A program that cannot be recorded leaves no trace file behind.
  CHECK_FALSE(std::filesystem::exists(o.output));
  std::filesystem::remove(o.output);
  REQUIRE_FALSE(r.ok());
  return r.error().to_string();
}

}  // namespace

TEST_CASE("a missing program is reported with its path") {
  std::string e = record_error({"/nonexistent/ttd-no-such-program"});
  CHECK(e.find("/nonexistent/ttd-no-such-program") != std::string::npos);
  CHECK(e.find("cannot open program") != std::string::npos);
}

TEST_CASE("a file that is not ELF is refused") {
  std::string p = write_temp("text", {'e', 'c', 'h', 'o', ' ', 'x', '\n'});
  CHECK(record_error({p}).find("program is not an ELF file") != std::string::npos);
  std::filesystem::remove(p);
  // A #! script runs its interpreter, as execve would; one that cannot be
  // run says why.
  std::string script = write_temp("script", {'#', '!', '/', 'b', 'i', 'n', '/', 's', 'h', '\n'});
  CHECK(record_error({script}).find("cannot run this #! script: Permission denied") != std::string::npos);
  std::filesystem::permissions(script, std::filesystem::perms::owner_all);
  std::string missing = write_temp("script-missing", {'#', '!', '/', 'n', 'o', '/', 's', 'h', '\n'});
  std::filesystem::permissions(missing, std::filesystem::perms::owner_all);
  CHECK(record_error({missing}).find("its interpreter '/no/sh' (or that program's loader) does not exist") !=
        std::string::npos);
  std::filesystem::remove(missing);
  std::filesystem::remove(script);
  std::string empty = write_temp("empty", {});
  CHECK(record_error({empty}).find("program is not an ELF file") != std::string::npos);
  std::filesystem::remove(empty);
}

TEST_CASE("a directory is refused with its path") {
  std::string dir = std::filesystem::temp_directory_path().string();
  std::string e = record_error({dir});
  CHECK(e.find(dir) != std::string::npos);
  CHECK(e.find("directory") != std::string::npos);
}

namespace {

// `prog`'s bytes with the first occurrence of `from` replaced by `to` (same length).
std::vector<uint8_t> patched(const std::string& prog, const std::string& from, const std::string& to) {
  std::ifstream in(prog, std::ios::binary);
  std::vector<uint8_t> b((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  std::string s(b.begin(), b.end());
  size_t at = s.find(from);
  REQUIRE(at != std::string::npos);
  REQUIRE(from.size() == to.size());
  std::memcpy(b.data() + at, to.data(), to.size());
  return b;
}

}  // namespace

TEST_CASE("a dynamically linked program whose interpreter is missing: the error names it, no trace") {
  std::string prog = test::program_path("x86_64-dyn", "probe");
  if (prog.empty()) return;
  std::string p = write_temp("nointerp", patched(prog, "/lib64/ld-linux-x86-64.so.2", "/lib64/ld-ttd-missing.so.22"));
  std::string e = record_error({p});
  CHECK(e.find("/lib64/ld-ttd-missing.so.22") != std::string::npos);
  CHECK(e.find("program interpreter") != std::string::npos);
  std::filesystem::remove(p);
}

TEST_CASE("a dynamically linked program whose library is missing: the loader's error, no trace") {
  std::string prog = test::program_path("x86_64-dyn", "probe");
  if (prog.empty()) return;
  std::string p = write_temp("nolib", patched(prog, std::string("libc.so.6\0", 10), std::string("libq.so.6\0", 10)));
  std::filesystem::permissions(p, std::filesystem::perms::owner_all);
  std::string e = record_error({p});
  CHECK(e.find("libq.so.6") != std::string::npos);
  CHECK(e.find("before the program started") != std::string::npos);
  std::filesystem::remove(p);
}

TEST_CASE("other architectures and 32-bit ELF are refused") {
  std::string riscv = write_temp("riscv", elf_header(ELFCLASS64, EM_RISCV));
  CHECK(record_error({riscv}).find("unsupported architecture: riscv") != std::string::npos);
  std::string i386 = write_temp("i386", elf_header(ELFCLASS32, EM_386));
  CHECK(record_error({i386}).find("unsupported architecture") != std::string::npos);
  std::filesystem::remove(riscv);
  std::filesystem::remove(i386);
}

TEST_CASE("a truncated or headerless ELF is refused with a byte offset") {
  std::string noph = write_temp("noph", elf_header(ELFCLASS64, EM_X86_64));
  std::string e = record_error({noph});
  CHECK(e.find("program header") != std::string::npos);
  std::filesystem::remove(noph);
}

TEST_CASE("missing arguments and an unwritable output are errors") {
  CHECK(record_error({}).find("no program") != std::string::npos);
  std::string prog = test::example_path("x86_64", "recursion");
  if (prog.empty()) return;
  std::string e = record_error({prog}, "/nonexistent-dir/ttd/out.ucir");
  CHECK(e.find("/nonexistent-dir/ttd/out.ucir") != std::string::npos);
}

TEST_CASE("static ELF headers: entry, segments and AT_PHDR without PT_PHDR (musl)") {
  std::string prog = test::example_path("x86_64", "recursion");
  if (prog.empty()) return;
  auto img = load_elf(prog);
  REQUIRE(img.ok());
  CHECK(img->arch == ArchId::X86_64);
  CHECK(img->load_bias == 0);
  CHECK(img->segments.size() >= 2);
  CHECK(img->phnum > 0);
  CHECK(img->phentsize == sizeof(Elf64_Phdr));
  // musl's static executables have no PT_PHDR: the headers are found in
  // the first PT_LOAD, right after the ELF header.
  CHECK(img->phdr_addr == img->segments[0].vaddr + sizeof(Elf64_Ehdr));
  CHECK(img->end > img->entry);
  std::string a64 = test::example_path("aarch64", "recursion");
  if (a64.empty()) return;
  auto img2 = load_elf(a64);
  REQUIRE(img2.ok());
  CHECK(img2->arch == ArchId::AArch64);
}
