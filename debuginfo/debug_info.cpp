#include "debuginfo/debug_info.h"

#include <algorithm>

#include "debuginfo/dwarf_registers.h"
#include "debuginfo/dwarf_file.h"
#include "debuginfo/frame_unwinder.h"
#include "debuginfo/line_table.h"
#include "debuginfo/symbol_table.h"
#include "debuginfo/variables.h"

namespace ttd::dbg {

struct DebugInfo::Impl {
  std::unique_ptr<DwarfFile> elf;
  uint64_t bias = 0;
  SymbolTable symbols;
  LineTable lines;
  std::unique_ptr<FrameUnwinder> unwinder;
  // Variable lookups build types lazily; logically const.
  mutable std::unique_ptr<VariableIndex> vars;
};

DebugInfo::DebugInfo(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DebugInfo::~DebugInfo() = default;

Result<std::unique_ptr<DebugInfo>> DebugInfo::open(const std::string& elf_path, uint64_t load_bias) {
  auto f = DwarfFile::open(elf_path);
  if (!f) return f.error();
  auto impl = std::make_unique<Impl>();
  impl->elf = std::move(*f);
  impl->bias = load_bias;
  impl->symbols = SymbolTable::build(*impl->elf, load_bias);
  impl->lines = LineTable::build(*impl->elf, load_bias);
  impl->unwinder = std::make_unique<FrameUnwinder>(*impl->elf, impl->symbols, load_bias);
  impl->vars = std::make_unique<VariableIndex>(*impl->elf, load_bias);
  return std::unique_ptr<DebugInfo>(new DebugInfo(std::move(impl)));
}

const std::string& DebugInfo::path() const { return impl_->elf->path(); }
uint16_t DebugInfo::machine() const { return impl_->elf->machine(); }
bool DebugInfo::has_lines() const { return !impl_->lines.empty(); }

std::optional<FunctionSym> DebugInfo::function_at(uint64_t pc) const {
  const FunctionSym* s = impl_->symbols.function_at(pc);
  if (!s) return std::nullopt;
  return *s;
}

std::vector<FunctionSym> DebugInfo::functions_named(std::string_view name) const {
  std::vector<FunctionSym> out;
  for (const FunctionSym* s : impl_->symbols.lookup(name)) out.push_back(*s);
  return out;
}

std::optional<uint64_t> DebugInfo::breakpoint_address(const FunctionSym& f) const {
  uint64_t end = f.size ? f.addr + f.size : f.addr + 1;
  if (auto a = impl_->lines.after_prologue(f.addr, end)) return a;
  return f.addr;
}

bool DebugInfo::is_function_entry(uint64_t pc) const {
  const FunctionSym* s = impl_->symbols.function_at(pc);
  return s && s->addr == pc;
}

std::optional<LineInfo> DebugInfo::line_at(uint64_t pc) const { return impl_->lines.line_at(pc); }

bool DebugInfo::is_statement_start(uint64_t pc) const {
  return impl_->lines.is_statement_start(pc) && !is_function_entry(pc);
}

std::vector<LineLocation> DebugInfo::resolve_line(std::string_view file, int line) const {
  std::vector<LineLocation> all = impl_->lines.resolve(file, line);
  std::sort(all.begin(), all.end(), [](const LineLocation& a, const LineLocation& b) { return a.addr < b.addr; });
  std::vector<LineLocation> out;
  std::vector<uint64_t> seen_functions;
  for (auto& loc : all) {
    const FunctionSym* fn = impl_->symbols.function_at(loc.addr);
    uint64_t key = fn ? fn->addr : loc.addr;
    if (std::find(seen_functions.begin(), seen_functions.end(), key) != seen_functions.end()) continue;
    seen_functions.push_back(key);
    if (fn && fn->addr == loc.addr)
      if (auto after = breakpoint_address(*fn)) loc.addr = *after;
    out.push_back(std::move(loc));
  }
  return out;
}

std::vector<std::string> DebugInfo::source_files() const { return impl_->lines.files(); }

std::vector<UnwoundFrame> DebugInfo::unwind(uint64_t pc, const DwarfRegisterReader& regs, const MemoryReader& mem,
                                            size_t max_frames) const {
  return impl_->unwinder->unwind(pc, regs, mem, max_frames);
}

std::string_view DebugInfo::dwarf_register_name(int regno) const {
  const DwarfRegisterSet* s = dwarf_registers(machine());
  if (!s || regno < 0 || regno >= int(s->names.size())) return {};
  return s->names[size_t(regno)];
}

int DebugInfo::dwarf_register_count() const {
  const DwarfRegisterSet* s = dwarf_registers(machine());
  return s ? int(s->names.size()) : 0;
}

uint8_t DebugInfo::pointer_size() const { return impl_->elf->is_64() ? 8 : 4; }

std::vector<VariableDesc> DebugInfo::locals_at(uint64_t pc) const { return impl_->vars->locals_at(pc); }
std::vector<VariableDesc> DebugInfo::globals_at(uint64_t pc) const { return impl_->vars->globals_at(pc); }
std::optional<VariableDesc> DebugInfo::global_named(uint64_t pc, std::string_view name) const {
  return impl_->vars->global_named(pc, name);
}

size_t DebugInfo::read_code(uint64_t addr, uint8_t* dst, size_t len) const {
  return impl_->elf->read(addr - impl_->bias, dst, len);
}

}  // namespace ttd::dbg
