// Writers for TT6, TT6E and FULL: turn an execution (from an emulator, a
// generator or a test) into the byte layout the readers take. Records go to
// an in-memory buffer; the caller saves it or drains it in chunks (bytes()
// may be written out and cleared at any record boundary).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/tt6/tt6_layout.h"
#include "state/error.h"

namespace ttd::fmt::tt6 {

// Writes the buffer to path (replacing it).
Status save_bytes(const std::string& path, const std::vector<uint8_t>& bytes);

class Tt6Writer {
 public:
  // variant: Tt6 or Tt6e. Writes the INITIAL_PC record.
  Tt6Writer(Variant variant, uint32_t initial_pc);

  // One executed instruction. The variant's opcode macros pick the record:
  // COMPUTE writes the opcode, FLOW_ALTERING adds next_pc, MEMORY adds ea,
  // MEMORY_EXTENDED adds ea and extra (XER for lswx/stswx, rB for dst/dstst).
  void instruction(uint32_t op, uint32_t next_pc, uint32_t ea, uint32_t extra);
  // An escape record: code and its longwords.
  void escape(uint32_t code, std::span<const uint32_t> words);
  // A thread-synchronisation escape (kSyncSignal ... kSyncTryWait).
  void sync(uint32_t type, uint32_t sync_point, uint32_t count);
  // TT6E only: the synthetic "b 0x00000700" + "rfi" Amber emits after a
  // trap word, returning to resume_pc.
  void trap_return(uint32_t resume_pc);

  std::vector<uint8_t>& bytes() { return out_; }
  Status save(const std::string& path) const { return save_bytes(path, out_); }

 private:
  void word(uint32_t w);
  Variant variant_;
  std::vector<uint8_t> out_;
};

class FullWriter {
 public:
  FullWriter();  // writes the cookie
  // One executed instruction: its opcode and the state before it (srr0 =
  // its address).
  void record(uint32_t op, const PpcUserState& before);

  std::vector<uint8_t>& bytes() { return out_; }
  Status save(const std::string& path) const { return save_bytes(path, out_); }

 private:
  std::vector<uint8_t> out_;
};

}  // namespace ttd::fmt::tt6
