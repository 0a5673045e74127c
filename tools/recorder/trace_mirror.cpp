#include "tools/recorder/trace_mirror.h"

#include <cstdio>
#include <algorithm>
#include <cstring>

namespace ttd::rec {

namespace {
constexpr size_t kMaxErrors = 20;

std::string hex(std::span<const uint8_t> b) {
  std::string s;
  char buf[4];
  for (size_t i = b.size(); i-- > 0;) {
    std::snprintf(buf, sizeof buf, "%02x", b[i]);
    s += buf;
  }
  return s;
}
}  // namespace

uint64_t TraceMirror::check_registers(const RegisterFile& live, uint64_t eid, std::vector<std::string>& errors) {
  const ArchDesc& arch = live.arch();
  uint64_t bad = 0;
  for (uint16_t i = 0; i < arch.regs.size(); ++i) {
    if (i == arch.pc_index || !live.valid(i)) continue;
    auto want = live.bytes(i);
    auto have = regs_->bytes(i);
    // A register the trace never mentioned is zero (the keyframe lists only
    // non-zero registers).
    bool same = regs_->valid(i) ? std::memcmp(want.data(), have.data(), want.size()) == 0
                               : std::all_of(want.begin(), want.end(), [](uint8_t b) { return b == 0; });
    if (same) continue;
    ++bad;
    if (errors.size() < kMaxErrors)
      errors.push_back("eid " + std::to_string(eid) + ": register " + arch.regs[i].name + " is 0x" + hex(want) +
                       " in the emulator but 0x" + (regs_->valid(i) ? hex(have) : std::string("0 (never written)")) +
                       " in the trace");
  }
  return bad;
}

uint64_t TraceMirror::check_memory(const GuestMemory& live, std::vector<std::string>& errors) {
  uint64_t bad = 0;
  std::vector<uint8_t> want(kPageSize), have(kPageSize), valid(kPageSize);
  for (const auto& [start, r] : live.regions().all()) {
    for (uint64_t a = start; a < start + r.size; a += kPageSize) {
      uint64_t n = std::min<uint64_t>(kPageSize, start + r.size - a);
      // Other processes change shared memory: the trace holds what this
      // one read of it (host_shared_memory.h), not every store.
      if (live.shared().overlaps(a, n)) continue;
      if (!live.read(a, {want.data(), n})) continue;
      uint64_t known = mem_.read(a, have.data(), valid.data(), n);
      if (known == n && std::memcmp(want.data(), have.data(), n) == 0) continue;
      ++bad;
      if (errors.size() < kMaxErrors) {
        size_t off = 0;
        while (off < n && valid[off] && want[off] == have[off]) ++off;
        char buf[160];
        if (off == n) off = 0;
        std::snprintf(buf, sizeof buf, "memory at 0x%llx (%s): emulator has %02x, trace has %s",
                      (unsigned long long)(a + off), r.name.c_str(), want[off],
                      valid[off] ? "a different byte" : "nothing");
        errors.push_back(buf);
      }
    }
  }
  return bad;
}

}  // namespace ttd::rec
