// libFuzzer target: arbitrary bytes as a program's ELF file, through every
// reader that takes one: the recorder's loader (tools/recorder/elf_image.h:
// `ttd record` of a hostile executable), the engine's program image (code
// bytes for a trace, `--program`), and the debug information a debugger
// asks of it (symbols, line table, breakpoint lines, variables with their
// types and locations evaluated, rendered values, unwinding), libdw
// underneath. Nothing may crash, hang or grow without bound; errors must
// name the file.
// Seeds: generated at fuzz time by scripts/fuzz.sh from
// tests/fuzz/corpus/elf/seed.c (a small static program with DWARF, built
// for x86-64 and aarch64): binaries stay out of git.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "debuginfo/debug_info.h"
#include "debuginfo/dwarf_expr.h"
#include "debuginfo/value_render.h"
#include "engine/program_image.h"
#include "tests/fuzz/fuzz_support.h"
#include "tools/recorder/elf_image.h"

namespace {

using namespace ttd;

// Registers and memory of a made-up stopped program: every register 0x1000
// more than its number, memory a pattern (so locations and unwinding run).
std::optional<uint64_t> fake_reg(int regno) { return regno >= 0 && regno < 128 ? 0x1000 + regno : std::optional<uint64_t>(); }
bool fake_mem(uint64_t addr, uint8_t* dst, size_t len) {
  if (len > 4096) return false;
  for (size_t i = 0; i < len; ++i) dst[i] = uint8_t((addr + i) * 7);
  return true;
}

void look_at_variables(const dbg::DebugInfo& d, const std::vector<dbg::VariableDesc>& vars) {
  size_t n = 0;
  for (const dbg::VariableDesc& v : vars) {
    if (++n > 32) break;
    dbg::ExprContext ctx{fake_reg, fake_mem, 0x7000, &v.frame_base, d.pointer_size()};
    auto loc = dbg::evaluate_location(v.location, ctx);
    if (!v.type) continue;
    const size_t size = std::min<uint64_t>(v.type->size, 256);
    std::vector<uint8_t> bytes(size), known(size, 1);
    if (loc && loc.value().kind == dbg::ExprLocation::Kind::Memory) fake_mem(loc.value().value, bytes.data(), size);
    (void)dbg::render_value(*v.type, bytes, known, fake_mem);
    (void)dbg::has_children(*v.type);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const fuzz::InputFile file("fuzz_elf");
  const std::string path = file.write(data, size);

  if (auto img = rec::load_elf(path); img) {
    rec::rebase(img.value(), 0x1000);
  } else if (img.error().where != path) {
    fuzz::fail("recorder: error does not name the file");
  }

  if (auto prog = ProgramImage::open(path); prog) {
    uint8_t buf[64];
    (void)prog.value()->read(prog.value()->entry(), buf, sizeof buf);
    (void)prog.value()->executable(prog.value()->entry());
  }

  auto info = dbg::DebugInfo::open(path, 0);
  if (!info) return 0;
  const dbg::DebugInfo& d = *info.value();
  uint8_t code[16];
  (void)d.read_code(0x401000, code, sizeof code);
  std::vector<uint64_t> pcs = {0x401000, 0x400000, 0x1000};
  for (const dbg::FunctionSym& f : d.functions_named("main")) {
    pcs.push_back(f.addr);
    (void)d.breakpoint_address(f);
  }
  const std::vector<std::string> files = d.source_files();
  for (size_t i = 0; i < files.size() && i < 4; ++i)
    for (int line = 1; line < 40; line += 7)
      for (const dbg::LineLocation& l : d.resolve_line(files[i], line)) pcs.push_back(l.addr);
  if (pcs.size() > 24) pcs.resize(24);
  for (uint64_t pc : pcs) {
    (void)d.function_at(pc);
    (void)d.line_at(pc);
    (void)d.is_statement_start(pc);
    look_at_variables(d, d.locals_at(pc));
    look_at_variables(d, d.globals_at(pc));
    (void)d.unwind(pc, fake_reg, fake_mem, 8);
  }
  return 0;
}
