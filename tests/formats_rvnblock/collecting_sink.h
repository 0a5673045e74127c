// A TraceSink that keeps everything an rvnblock read produces, so tests can
// compare steps, attributes and code writes with reference data.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "formats/common/trace_sink.h"

namespace ttd::test {

struct CodeWrite {
  uint64_t before_eid = 0;  // the write is known in the state at this EID
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;
};

class CollectingSink : public fmt::TraceSink {
 public:
  fmt::TraceInfo info;
  std::vector<fmt::StepInfo> steps;
  std::map<uint64_t, std::vector<std::pair<std::string, fmt::AttrValue>>> attrs;  // by EID
  std::vector<CodeWrite> writes;
  int registers = 0, reads = 0;
  bool ended = false;

  void begin(const fmt::TraceInfo& i) override { info = i; }
  void step(const fmt::StepInfo& s) override { steps.push_back(s); }
  void attr(std::string_view key, const fmt::AttrValue& v) override {
    attrs[steps.size() - 1].emplace_back(std::string(key), v);
  }
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override { ++registers; }
  void mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) override {
    writes.push_back({steps.size(), addr, {bytes.begin(), bytes.end()}});
  }
  void mem_read(uint64_t, uint64_t, uint32_t, std::span<const uint8_t>) override { ++reads; }
  void end() override { ended = true; }

  // Code bytes known at EID `eid` for [addr, addr+len), from the writes so far.
  std::vector<uint8_t> code_at(uint64_t eid, uint64_t addr, size_t len) const {
    std::vector<uint8_t> out(len);
    std::vector<bool> have(len, false);
    for (const auto& w : writes) {
      if (w.before_eid > eid) break;
      for (size_t i = 0; i < w.bytes.size(); ++i) {
        uint64_t a = w.addr + i;
        if (a >= addr && a < addr + len) {
          out[a - addr] = w.bytes[i];
          have[a - addr] = true;
        }
      }
    }
    for (bool h : have)
      if (!h) return {};
    return out;
  }
};

}  // namespace ttd::test
