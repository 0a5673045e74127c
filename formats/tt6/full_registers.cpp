#include "formats/tt6/full_registers.h"

#include <cstdlib>
#include <cstring>
#include <string>

#include "formats/tt6/tt6_layout.h"

namespace ttd::fmt::tt6 {

namespace {
// (Appending rather than "r" + to_string(i) keeps GCC 12's -Wrestrict quiet.)
std::string numbered(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
}  // namespace

FullRegisterEmitter::FullRegisterEmitter(const ArchDesc& arch) {
  auto add = [&](const std::string& name, size_t offset, uint16_t bytes, int vr = -1) {
    auto idx = arch.find(name);
    // The ppc32 table is fixed (state/arch_ppc.cpp); a missing name is a bug.
    if (!idx || arch.regs[*idx].bytes() != bytes) std::abort();
    slots_.push_back(Slot{uint32_t(offset), bytes, *idx, int16_t(vr)});
  };
  add("msr", full::kSrr1, 4);
  for (int i = 0; i < 32; ++i) add(numbered("r", i), full::kGpr0 + 4 * i, 4);
  add("cr", full::kCr, 4);
  add("xer", full::kXer, 4);
  add("lr", full::kLr, 4);
  add("ctr", full::kCtr, 4);
  add("vrsave", full::kVrsave, 4);
  for (int i = 0; i < 32; ++i) add(numbered("f", i), full::kFpr0 + 8 * i, 8);
  add("fpscr", full::kFpscr, 4);
  for (int i = 0; i < 32; ++i) add(numbered("vr", i), full::kVr0 + 16 * i, 16, i);
  add("vscr", full::kVscr, 4);
}

bool FullRegisterEmitter::valid(const uint8_t* rec, const Slot& s) {
  return s.vr < 0 || (load_be32(rec + full::kVrvalid) & (0x80000000u >> s.vr)) != 0;
}

void FullRegisterEmitter::initial(const uint8_t* rec, TraceSink& sink, uint64_t tid) const {
  for (const Slot& s : slots_) {
    if (valid(rec, s))
      sink.reg(tid, s.reg, std::span<const uint8_t>(rec + s.offset, s.bytes));
    else
      sink.reg_unknown(tid, s.reg);
  }
}

void FullRegisterEmitter::changes(const uint8_t* prev, const uint8_t* cur, TraceSink& sink, uint64_t tid) const {
  for (const Slot& s : slots_) {
    const bool was = valid(prev, s), is = valid(cur, s);
    if (!is) {
      if (was) sink.reg_unknown(tid, s.reg);
      continue;
    }
    if (!was || std::memcmp(prev + s.offset, cur + s.offset, s.bytes) != 0)
      sink.reg(tid, s.reg, std::span<const uint8_t>(cur + s.offset, s.bytes));
  }
}

void FullRegisterEmitter::forget_all(TraceSink& sink, uint64_t tid) const {
  for (const Slot& s : slots_) sink.reg_unknown(tid, s.reg);
}

}  // namespace ttd::fmt::tt6
