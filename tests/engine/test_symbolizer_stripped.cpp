// The symbolizer on a stripped program (Debian ships its binaries without
// .symtab): function symbols and untyped code labels still come from
// .dynsym. The program is compiled and stripped at test time.
#include <doctest/doctest.h>
#include <elf.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <optional>

#include "elf/elf_file.h"
#include "elf/elf_sections.h"
#include "engine/symbolizer.h"

using namespace ttd;

namespace {

// A label with no symbol type in .text (as hand-written assembly leaves
// them) and an exported function; -rdynamic puts both into .dynsym.
constexpr const char* kSource = R"(
__asm__(".text\n.globl ttd_bare_label\nttd_bare_label:\n nop\n nop\n nop\n nop\n ret\n");
int ttd_exported_function(int x) { return x * 3 + 1; }
int main(int argc, char** argv) { (void)argv; return ttd_exported_function(argc); }
)";

struct TempDir {
  std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("ttd_symbolizer_stripped_" + std::to_string(getpid()));
  TempDir() { std::filesystem::create_directories(path); }
  ~TempDir() { std::filesystem::remove_all(path); }
};

std::optional<uint64_t> symbol_value(const std::string& path, const std::string& name) {
  auto f = elf::ElfFile::open(path, "the test program");
  REQUIRE(f.ok());
  for (const elf::Symbol& s : elf::symbols(*f))
    if (s.name == name) return s.value;
  return std::nullopt;
}

}  // namespace

TEST_CASE("a stripped program: functions and code labels come from .dynsym") {
  TempDir dir;
  const std::string src = (dir.path / "labels.c").string();
  const std::string full = (dir.path / "labels").string(), stripped = (dir.path / "labels.stripped").string();
  std::ofstream(src) << kSource;
  const std::string build = std::string(TTD_TEST_CC) + " -O0 -rdynamic -o " + full + " " + src + " && " +
                            TTD_TEST_STRIP + " -o " + stripped + " " + full;
  REQUIRE(std::system(build.c_str()) == 0);

  // The stripped copy really has no .symtab, so what is found is .dynsym's.
  auto sf = elf::ElfFile::open(stripped, "the stripped program");
  REQUIRE(sf.ok());
  auto symtab = elf::find_section(*sf, ".symtab");
  REQUIRE(symtab.ok());
  REQUIRE_FALSE(symtab->has_value());

  const auto label = symbol_value(full, "ttd_bare_label");
  const auto function = symbol_value(full, "ttd_exported_function");
  REQUIRE(label);
  REQUIRE(function);
  Symbolizer s(nullptr, ArchId::X86_64, {SymbolFile{stripped, std::nullopt}}, "");
  auto at_function = s.at(*function + 1);
  REQUIRE(at_function);
  CHECK(at_function->function == "ttd_exported_function");
  CHECK(at_function->offset == 1);
  // (In the unstripped file .symtab's sizeless frame_dummy, which comes
  // before it, claims this pc; .dynsym has no such symbol.)
  auto at_label = s.at(*label + 2);
  REQUIRE(at_label);
  CHECK(at_label->function == "ttd_bare_label");
  CHECK(at_label->offset == 2);
  CHECK(s.warnings().empty());
}
