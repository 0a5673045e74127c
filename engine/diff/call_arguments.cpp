#include "engine/diff/call_arguments.h"

#include <algorithm>

#include "engine/cursor.h"

namespace ttd::diff {

std::vector<uint16_t> argument_registers(const ArchDesc& arch) {
  std::vector<const char*> names;
  switch (arch.id) {
    case ArchId::X86_64: names = {"rdi", "rsi", "rdx", "rcx", "r8", "r9"}; break;
    case ArchId::AArch64: names = {"x0", "x1", "x2", "x3", "x4", "x5", "x6", "x7"}; break;
    case ArchId::Arm: names = {"r0", "r1", "r2", "r3"}; break;
    case ArchId::Mips: names = {"a0", "a1", "a2", "a3"}; break;
    case ArchId::Ppc32: names = {"r3", "r4", "r5", "r6", "r7", "r8", "r9", "r10"}; break;
    case ArchId::I386: break;
  }
  std::vector<uint16_t> out;
  for (const char* n : names)
    if (auto r = arch.find(n)) out.push_back(*r);
  // A table without one of them: no arguments rather than shifted ones.
  if (out.size() != names.size()) out.clear();
  return out;
}

Result<std::unordered_map<uint64_t, CallArguments>> read_call_arguments(std::shared_ptr<const Trace> t,
                                                                       std::vector<uint64_t> entry_eids,
                                                                       const std::function<bool()>& cancel) {
  std::unordered_map<uint64_t, CallArguments> out;
  const auto regs = argument_registers(t->arch());
  if (regs.empty() || entry_eids.empty()) return out;
  std::sort(entry_eids.begin(), entry_eids.end());
  entry_eids.erase(std::unique(entry_eids.begin(), entry_eids.end()), entry_eids.end());
  out.reserve(entry_eids.size());
  Cursor c(t);
  size_t n = 0;
  for (uint64_t eid : entry_eids) {
    if (cancel && (++n & 1023) == 0 && cancel()) return make_error("diff", "interrupted");
    if (eid >= t->step_count()) continue;
    if (auto s = c.seek(eid); !s) return s.error();
    CallArguments a;
    a.values.resize(regs.size());
    if (const ThreadState* th = c.state().find_thread(c.current_tid()))
      for (size_t i = 0; i < regs.size(); ++i) a.values[i] = th->regs.get_u64(regs[i]);
    out.emplace(eid, std::move(a));
  }
  return out;
}

}  // namespace ttd::diff
