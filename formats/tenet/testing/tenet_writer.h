// Writes Tenet text lines the way Tenet's tracers do, for test fixtures, the
// fuzz corpus and the throughput generator. Call line() from a hook that
// runs before each instruction, with the registers as they are now and the
// accesses the previous instruction made (their bytes read from memory now).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/tenet/tenet_line.h"

namespace ttd::fmt::tenet {

struct TenetStyle {
  bool uppercase = false;   // QEMU tracers: "RAX=", Pin: "rax="
  bool hex_prefix = true;   // Pin: "0x1f", QEMU: "1F"
  // Pin diffs the first line against zeroed registers (zero registers are
  // left out); QEMU tracers start from 0xff.. so the first line has all.
  bool first_line_omits_zero = true;
};

struct WrittenAccess {
  AccessKind kind = AccessKind::Read;
  uint64_t addr = 0;
  std::vector<uint8_t> bytes;  // memory contents when the line is written
};

class TenetWriter {
 public:
  // register_names: lowercase, in the order values are passed to line();
  // the instruction pointer is not among them.
  TenetWriter(std::vector<std::string> register_names, std::string ip_name, TenetStyle style = {});

  // Appends one line (with its '\n') to out.
  void line(std::span<const uint64_t> regs, uint64_t pc, std::span<const WrittenAccess> previous_accesses,
            std::string& out);

 private:
  void hex(uint64_t v, std::string& out) const;

  std::vector<std::string> names_;
  std::string ip_name_;
  TenetStyle style_;
  std::vector<uint64_t> previous_;
  bool first_ = true;
};

}  // namespace ttd::fmt::tenet
