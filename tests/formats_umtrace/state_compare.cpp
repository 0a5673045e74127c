#include "state_compare.h"

#include <cstdio>
#include <cstring>

namespace ttd::test {

namespace {

std::string hex_bytes(const uint8_t* p, size_t n) {
  std::string s;
  char b[4];
  for (size_t i = n; i-- > 0;) {
    std::snprintf(b, sizeof b, "%02x", p[i]);
    s += b;
  }
  return s;
}

void mismatch(CompareStats& stats, const std::string& what) {
  if (stats.mismatches++ == 0) stats.first_mismatch = what;
}

}  // namespace

void compare_state(const MachineState& st, const EmulatorState& emu, const UmtraceTracerSetup& setup,
                   uint64_t step_tid, uint64_t eid, CompareStats& stats) {
  const ArchDesc& arch = st.arch();
  for (const auto& [tid, t] : st.threads()) {
    auto it = emu.regs.find(tid);
    for (uint16_t r = 0; r < arch.regs.size(); ++r) {
      if (!t.regs.valid(r)) continue;
      if (r == arch.pc_index && tid != step_tid) continue;
      if (it == emu.regs.end() || it->second[r].empty()) {
        mismatch(stats, "EID " + std::to_string(eid) + ": thread " + std::to_string(tid) + " register " +
                            arch.regs[r].name + " is known, but the emulator has no such thread or register");
        continue;
      }
      ++stats.registers;
      auto got = t.regs.bytes(r);
      const auto& want = it->second[r];
      if (std::memcmp(got.data(), want.data(), want.size()) != 0)
        mismatch(stats, "EID " + std::to_string(eid) + ": thread " + std::to_string(tid) + " " + arch.regs[r].name +
                            " = " + hex_bytes(got.data(), got.size()) + ", emulator " +
                            hex_bytes(want.data(), want.size()));
    }
  }
  for (const auto& [pid, p] : st.processes()) {
    for (const auto& [page_no, page] : p.memory.pages()) {
      if (!page) continue;
      const uint64_t base = page_no << kPageShift;
      for (uint64_t i = 0; i < kPageSize; ++i) {
        if (!((page->valid[i / 64] >> (i % 64)) & 1)) continue;
        const uint64_t a = base + i;
        const uint8_t* want = nullptr;
        for (size_t k = 0; k < setup.regions.size() && !want; ++k)
          if (a >= setup.regions[k].base && a < setup.regions[k].base + setup.regions[k].size)
            want = &emu.memory[k][a - setup.regions[k].base];
        if (!want && a >= setup.code_base && a < setup.code_base + setup.code.size()) want = &emu.code[a - setup.code_base];
        if (!want) {
          mismatch(stats, "EID " + std::to_string(eid) + ": byte at " + std::to_string(a) +
                              " is known but lies outside the emulator's memory");
          continue;
        }
        ++stats.memory_bytes;
        if (page->data[i] != *want) {
          char b[128];
          std::snprintf(b, sizeof b, "EID %llu: memory at 0x%llx = %02x, emulator %02x", (unsigned long long)eid,
                        (unsigned long long)a, page->data[i], *want);
          mismatch(stats, b);
        }
      }
    }
  }
}

bool general_registers_known(const MachineState& st, uint64_t tid) {
  const ThreadState* t = st.find_thread(tid);
  if (!t) return false;
  for (uint16_t r = 0; r < st.arch().regs.size(); ++r)
    if (st.arch().regs[r].group == "general" && st.arch().regs[r].bits >= 32 && !t->regs.valid(r)) {
      const std::string& n = st.arch().regs[r].name;
      if (n.size() == 2 && n[1] == 's') continue;  // segment selectors come only with context dumps
      return false;
    }
  return true;
}

}  // namespace ttd::test
