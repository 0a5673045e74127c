#include "state/byte_order.h"
#include "debuginfo/frame_unwinder.h"

#include <cstdlib>

#include "debuginfo/dwarf_expr.h"
#include "debuginfo/dwarf_registers.h"
#include "debuginfo/dwarf_file.h"
#include "debuginfo/symbol_table.h"

namespace ttd::dbg {

namespace {
DwarfExpr copy_ops(const Dwarf_Op* ops, size_t n) {
  DwarfExpr e;
  for (size_t i = 0; i < n; ++i) e.push_back({ops[i].atom, ops[i].number, ops[i].number2, ops[i].offset});
  return e;
}

bool load_word(const MemoryReader& mem, uint64_t addr, uint8_t size, uint64_t& out) {
  uint8_t b[8] = {};
  if (!mem || !mem(addr, b, size)) return false;
  out = load_le(b, size);
  return true;
}

DwarfRegisterReader reader_of(const UnwoundFrame& f) {
  return [&f](int regno) -> std::optional<uint64_t> {
    auto it = f.regs.find(regno);
    if (it == f.regs.end()) return std::nullopt;
    return it->second;
  };
}
}  // namespace

FrameUnwinder::FrameUnwinder(const DwarfFile& f, const SymbolTable& syms, uint64_t bias)
    : elf_(f), syms_(syms), set_(dwarf_registers(f.machine())), bias_(bias) {}

bool FrameUnwinder::step_cfi(const UnwoundFrame& f, bool innermost, const MemoryReader& mem, UnwoundFrame& caller) const {
  // A return address may point just past a call that never returns: look
  // up the CFI of the call instruction itself.
  uint64_t lookup = (innermost ? f.pc : f.pc - 1) - bias_;
  Dwarf_Frame* frame = nullptr;
  for (Dwarf_CFI* cfi : {elf_.debug_cfi(), elf_.eh_cfi()}) {
    if (cfi && dwarf_cfi_addrframe(cfi, lookup, &frame) == 0) break;
    frame = nullptr;
  }
  if (!frame) return false;
  bool ok = false;
  Dwarf_Op* ops = nullptr;
  size_t nops = 0;
  if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops > 0) {
    ExprContext ctx;
    ctx.regs = reader_of(f);
    ctx.mem = mem;
    ctx.ptr_size = set_->ptr_size;
    auto cfa_loc = evaluate_location(copy_ops(ops, nops), ctx);
    if (cfa_loc) {
      uint64_t cfa = cfa_loc->value;
      if (cfa_loc->kind == ExprLocation::Kind::Register) {
        auto it = f.regs.find(int(cfa_loc->value));
        if (it == f.regs.end()) goto done;
        cfa = it->second;
      }
      caller.cfa = cfa;
      caller.cfa_known = true;
      ctx.cfa = cfa;
      for (int r = 0; r < int(set_->names.size()); ++r) {
        Dwarf_Op mem_ops[3];
        Dwarf_Op* rops = nullptr;
        size_t rn = 0;
        if (dwarf_frame_register(frame, r, mem_ops, &rops, &rn) != 0) continue;
        if (rn == 0) {
          if (rops == nullptr) {  // same value
            auto it = f.regs.find(r);
            if (it != f.regs.end()) caller.regs[r] = it->second;
          }
          continue;  // else undefined
        }
        auto loc = evaluate_location(copy_ops(rops, rn), ctx);
        if (!loc) continue;
        uint64_t v = 0;
        if (loc->kind == ExprLocation::Kind::Value) {
          v = loc->value;
        } else if (loc->kind == ExprLocation::Kind::Register) {
          auto it = f.regs.find(int(loc->value));
          if (it == f.regs.end()) continue;
          v = it->second;
        } else if (loc->kind == ExprLocation::Kind::Memory) {
          if (!load_word(mem, loc->value, set_->ptr_size, v)) continue;
        } else {
          continue;
        }
        caller.regs[r] = v;
      }
      // The caller's stack pointer is the CFA unless CFI says otherwise.
      if (!caller.regs.count(set_->sp)) caller.regs[set_->sp] = cfa;
      auto ra = caller.regs.find(set_->return_address);
      if (ra != caller.regs.end()) {
        caller.pc = ra->second;
        ok = true;
      }
      if (set_->pc < 0) caller.regs.erase(set_->return_address);  // lr is not the caller's lr
    }
  }
done:
  std::free(frame);
  caller.method = UnwoundFrame::Method::Cfi;
  return ok;
}

bool FrameUnwinder::step_frame_pointer(const UnwoundFrame& f, bool innermost, const MemoryReader& mem,
                                       UnwoundFrame& caller) const {
  uint8_t p = set_->ptr_size;
  auto sp = f.regs.find(set_->sp), fp = f.regs.find(set_->fp);
  caller.method = UnwoundFrame::Method::FramePointer;
  const FunctionSym* fn = syms_.function_at(f.pc);
  // At a function's first instruction (x86) the return address is on top
  // of the stack and the frame pointer still belongs to the caller.
  if (innermost && fn && fn->addr == f.pc && set_->pc >= 0 && sp != f.regs.end()) {
    uint64_t ra = 0;
    if (!load_word(mem, sp->second, p, ra)) return false;
    caller.regs = f.regs;
    caller.regs[set_->sp] = sp->second + p;
    caller.pc = ra;
    caller.cfa = sp->second + p;
    caller.cfa_known = true;
    return true;
  }
  if (fp == f.regs.end() || fp->second == 0) return false;
  uint64_t saved_fp = 0, ra = 0;
  if (!load_word(mem, fp->second, p, saved_fp) || !load_word(mem, fp->second + p, p, ra)) return false;
  caller.regs[set_->fp] = saved_fp;
  caller.regs[set_->sp] = fp->second + 2 * p;
  caller.cfa = fp->second + 2 * p;
  caller.cfa_known = true;
  caller.pc = ra;
  return true;
}

std::vector<UnwoundFrame> FrameUnwinder::unwind(uint64_t pc, const DwarfRegisterReader& regs, const MemoryReader& mem,
                                                size_t max_frames) const {
  std::vector<UnwoundFrame> out;
  if (max_frames == 0) return out;
  UnwoundFrame first;
  first.pc = pc;
  if (set_)
    for (int r = 0; r < int(set_->names.size()); ++r)
      if (auto v = regs ? regs(r) : std::nullopt) first.regs[r] = *v;
  if (set_ && set_->pc >= 0) first.regs[set_->pc] = pc;
  out.push_back(std::move(first));
  if (!set_) return out;
  while (out.size() < max_frames) {
    UnwoundFrame& f = out.back();
    bool innermost = out.size() == 1;
    UnwoundFrame caller;
    bool ok = step_cfi(f, innermost, mem, caller);
    if (ok && caller.cfa_known) f.cfa = caller.cfa, f.cfa_known = true;
    if (!ok) {
      caller = UnwoundFrame{};
      ok = step_frame_pointer(f, innermost, mem, caller);
      if (ok && caller.cfa_known) f.cfa = caller.cfa, f.cfa_known = true;
    }
    if (!ok || caller.pc == 0) break;
    // The caller's stack must lie above ours; anything else is a loop.
    auto fsp = f.regs.find(set_->sp), csp = caller.regs.find(set_->sp);
    if (fsp != f.regs.end() && csp != caller.regs.end() && csp->second <= fsp->second) break;
    caller.cfa = 0;
    caller.cfa_known = false;
    if (set_->pc >= 0) caller.regs[set_->pc] = caller.pc;
    out.push_back(std::move(caller));
  }
  // The outermost frame's CFA, when the loop stopped before computing it.
  return out;
}

}  // namespace ttd::dbg
