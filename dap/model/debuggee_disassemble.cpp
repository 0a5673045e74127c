// EngineDebuggee::disassemble. DAP asks for instructions around an address,
// often starting before it (VS Code's disassembly view uses a negative
// instructionOffset). x86 cannot be decoded backwards, so decoding starts
// at a known instruction boundary at or before the address — the start of
// the containing function, else the line-table row, else a probe that
// re-synchronises — and runs forwards.
#include <cinttypes>
#include <cstdio>
#include <iterator>

#include "dap/model/engine_debuggee.h"
#include "dap/model/instruction_decoder.h"

namespace ttd::dap {

namespace {

DisassembledLine invalid_line(uint64_t addr) {
  DisassembledLine l;
  l.addr = addr;
  l.text = "??";
  l.invalid = true;
  return l;
}

}  // namespace

Result<std::vector<DisassembledLine>> EngineDebuggee::disassemble(uint64_t tid, uint64_t addr, int64_t instruction_offset,
                                                                  size_t count) {
  tid = thread_or_current(tid);
  std::vector<DisassembledLine> out;
  if (count == 0) return out;
  if (count > kMaxDisassembleCount)
    return make_error("disassemble", "instructionCount " + std::to_string(count) + " is more than the limit of " +
                                         std::to_string(kMaxDisassembleCount));
  if (instruction_offset < -kMaxDisassembleOffset || instruction_offset > kMaxDisassembleOffset)
    return make_error("disassemble", "instructionOffset " + std::to_string(instruction_offset) + " is farther than " +
                                         std::to_string(kMaxDisassembleOffset) +
                                         " instructions from the address; ask from an address nearer the code wanted");
  // Every decode counts against a budget proportional to what was asked
  // for; past it the remaining lines are placeholders, so no request can
  // make the walk back over the function(s) before addr run long.
  uint64_t far = uint64_t(instruction_offset < 0 ? -instruction_offset : instruction_offset);
  uint64_t budget = 4 * (far + count) + (1u << 16);
  InstructionDecoder dec(trace_->arch());
  dec.set_reader([this, tid](uint64_t a, uint8_t* dst, size_t len) { return read_code(tid, a, dst, len); });
  if (!dec.available()) return make_error("disassemble", "Capstone cannot disassemble " + trace_->arch().name);
  auto line_for = [&](uint64_t a) {
    if (budget == 0) return invalid_line(a);
    --budget;
    std::optional<DecodedInstruction> d = dec.decode(a);
    if (!d) return invalid_line(a);
    DisassembledLine l;
    l.addr = a;
    l.text = d->text;
    l.bytes = d->bytes;
    l.source = source_at(a);
    if (debug_)
      if (auto fn = debug_->function_at(a)) {
        char off[32];
        std::snprintf(off, sizeof off, "+%" PRIu64, a - fn->addr);
        l.symbol = a == fn->addr ? fn->name : fn->name + off;
      }
    return l;
  };
  auto step = [&](const DisassembledLine& l) -> uint64_t {
    if (l.invalid) return trace_->arch().id == ArchId::X86_64 || trace_->arch().id == ArchId::I386 ? 1 : 4;
    return l.bytes.size() / 2;
  };

  // Instructions before addr, decoded forwards from a boundary.
  std::vector<DisassembledLine> before;
  if (instruction_offset < 0) {
    uint64_t need = uint64_t(-instruction_offset);
    uint64_t start = addr;
    std::optional<dbg::FunctionSym> fn = debug_ ? debug_->function_at(addr) : std::nullopt;
    if (fn && addr - fn->addr <= (1u << 16)) start = fn->addr;
    else if (auto src = debug_ ? debug_->line_at(addr) : std::nullopt) start = src->row_start;
    // Walk further back function by function until there are enough.
    for (int rounds = 0; rounds < 64; ++rounds) {
      std::vector<DisassembledLine> run;
      uint64_t a = start;
      while (a < addr && run.size() < 100000 && budget > 0) {
        run.push_back(line_for(a));
        a += step(run.back());
      }
      if (a == addr) {
        before = std::move(run);
        if (before.size() >= need || start == 0) break;
      } else if (before.empty() && rounds == 0) {
        // No clean boundary: probe a few start points to resynchronise.
        for (uint64_t back = 64; back > 0 && before.empty(); --back) {
          if (addr < back) continue;
          std::vector<DisassembledLine> probe;
          uint64_t p = addr - back;
          while (p < addr) {
            probe.push_back(line_for(p));
            if (probe.back().invalid) break;
            p += step(probe.back());
          }
          if (p == addr) before = std::move(probe);
        }
        break;
      }
      std::optional<dbg::FunctionSym> prev = debug_ && start > 0 ? debug_->function_at(start - 1) : std::nullopt;
      if (!prev || prev->addr >= start) break;
      start = prev->addr;
    }
    // Pad with placeholders when the code before is unknown (built once
    // and prepended: inserting one at a time at the front is quadratic).
    if (before.size() < need) {
      uint64_t first = before.empty() ? addr : before.front().addr;
      size_t missing = size_t(need) - before.size();
      std::vector<DisassembledLine> pad;
      pad.reserve(missing + before.size());
      for (size_t i = missing; i > 0; --i) pad.push_back(invalid_line(first >= i ? first - i : 0));
      pad.insert(pad.end(), std::make_move_iterator(before.begin()), std::make_move_iterator(before.end()));
      before = std::move(pad);
    }
    size_t drop = before.size() - size_t(need);
    before.erase(before.begin(), before.begin() + int64_t(drop));
  }
  out = std::move(before);
  if (out.size() > count) out.resize(count);
  // From addr forwards (skipping instruction_offset instructions if positive).
  uint64_t a = addr;
  for (int64_t skip = std::max<int64_t>(instruction_offset, 0); skip > 0; --skip) a += step(line_for(a));
  while (out.size() < count) {
    out.push_back(line_for(a));
    a += step(out.back());
  }
  return out;
}

}  // namespace ttd::dap
