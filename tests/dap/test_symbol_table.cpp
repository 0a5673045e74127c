// SymbolTable answers its first lookup with a scan and sorts at the
// second: both must name the same function for every pc, aliases included
// (libc names one address write, __write and __libc_write).
#include <doctest/doctest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "debuginfo/dwarf_file.h"
#include "debuginfo/symbol_table.h"

using namespace ttd::dbg;

namespace {

// pcs worth asking: each function's first byte, its second, its last, the
// byte after it, and one below the lowest.
std::vector<uint64_t> probe_pcs(const std::vector<FunctionSym>& fns, size_t stride) {
  std::vector<uint64_t> pcs;
  if (!fns.empty() && fns.front().addr > 0) pcs.push_back(fns.front().addr - 1);
  for (size_t i = 0; i < fns.size(); i += stride) {
    const FunctionSym& f = fns[i];
    pcs.insert(pcs.end(), {f.addr, f.addr + 1});
    if (f.size) pcs.insert(pcs.end(), {f.addr + f.size - 1, f.addr + f.size});
  }
  return pcs;
}

void check_scan_equals_sorted(const std::string& path, size_t stride) {
  auto file = DwarfFile::open(path);
  REQUIRE(file.ok());
  const uint64_t bias = 0x1000;
  SymbolTable sorted = SymbolTable::build(**file, bias);
  REQUIRE(!sorted.functions().empty());
  size_t asked = 0, named = 0;
  for (uint64_t pc : probe_pcs(sorted.functions(), stride)) {
    SymbolTable fresh = SymbolTable::build(**file, bias);  // its first lookup scans
    const FunctionSym* a = fresh.function_at(pc);
    const FunctionSym* b = sorted.function_at(pc);
    ++asked;
    INFO(path << " pc 0x" << std::hex << pc);
    REQUIRE((a == nullptr) == (b == nullptr));
    if (!a) continue;
    ++named;
    CHECK(a->name == b->name);
    CHECK(a->addr == b->addr);
    CHECK(a->size == b->size);
    // The second lookup of the fresh table goes through the sorted path.
    const FunctionSym* again = fresh.function_at(pc);
    REQUIRE(again);
    CHECK(again->name == a->name);
  }
  CHECK(named > asked / 2);
}

}  // namespace

TEST_CASE("symbol table: the first lookup's scan names what the sorted table names") {
  check_scan_equals_sorted(TTD_DAP_FIXTURE_BINARY, 1);
  // libc: aliases at one address, IFUNCs, symbols without size (.dynsym,
  // or .symtab via the libc6-dbg debug file when installed).
  for (const char* libc : {"/lib/x86_64-linux-gnu/libc.so.6", "/lib/aarch64-linux-gnu/libc.so.6"})
    if (std::filesystem::exists(libc)) check_scan_equals_sorted(libc, 7);
}

TEST_CASE("symbol table: a pc below every function, and a first lookup that finds nothing") {
  auto file = DwarfFile::open(TTD_DAP_FIXTURE_BINARY);
  REQUIRE(file.ok());
  SymbolTable t = SymbolTable::build(**file, 0);
  CHECK(t.function_at(0) == nullptr);  // the scan finds nothing
  CHECK(t.function_at(0) == nullptr);  // and so does the sorted table
  REQUIRE(!t.functions().empty());
  const FunctionSym& f = t.functions().front();
  CHECK(t.function_at(f.addr)->name == f.name);
  CHECK(t.lookup(f.name).size() >= 1);
}
