// One source step's effects, streamed into a UcirWriter by `ttd convert
// --to ucir` (ucir_trace_writer.h). Effects of the step's own thread go out
// as they come; another thread's (its thread_begin and the registers it
// starts with, e.g. in a clone step) are held for the thread keyframe that
// follows the step. Register values go out little-endian, as the writer
// wants them, whatever the target's byte order. Tracks each thread's
// registers as integers (for the syscall ABI fallback), counts the effects
// UCIR cannot say ("became unknown"), and notes the first register write
// UCIR has no number for, so the caller refuses the trace naming it
// instead of losing the write.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <vector>

#include "engine/effect_visitor.h"
#include "engine/trace.h"
#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_writer.h"
#include "tools/ttd/unknown_ranges.h"

namespace ttd::cli {

// Target-order register bytes as the little-endian value UcirWriter::reg takes.
std::vector<uint8_t> register_value_le(const ArchDesc& arch, std::span<const uint8_t> target_order);
// The register's value as an integer (its low 8 bytes).
uint64_t register_u64(const ArchDesc& arch, std::span<const uint8_t> target_order);

struct UcirEffectForwarder : EffectVisitor {
  struct NewThread {
    uint32_t tidx = 0;
    bool began = false;  // a thread_begin, not only register writes
    std::vector<std::pair<uint16_t, std::vector<uint8_t>>> regs;  // target order
  };
  using ThreadRegisters = std::vector<std::optional<uint64_t>>;

  UcirEffectForwarder(fmt::UcirWriter& w, const ArchDesc& arch);

  // A new step of thread `tidx` begins: clears what the last one noted.
  void start(uint32_t tidx);
  ThreadRegisters& regs_of(uint32_t tidx);
  // Writes a register of the step's thread (also used for keyframes).
  void write_reg(uint16_t r, std::span<const uint8_t> target_order);

  void reg(uint32_t tidx, uint16_t r, const uint8_t* v, uint32_t len) override;
  void reg_unknown(uint32_t tidx, uint16_t r) override;
  void mem_write(uint64_t, uint64_t addr, const uint8_t* bytes, uint64_t len) override { w_.mem_write(addr, {bytes, len}); }
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t*) override;
  void mem_unknown(uint64_t, uint64_t addr, uint64_t size) override {
    ++unknowns;
    made_unknown.add(addr, size);
  }
  void mem_map(uint64_t, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override {
    w_.mem_map(addr, size, prot, name);
  }
  void mem_unmap(uint64_t, uint64_t addr, uint64_t size) override { w_.mem_unmap(addr, size); }
  void mem_protect(uint64_t, uint64_t addr, uint64_t size, uint8_t prot) override { w_.mem_protect(addr, size, prot); }
  void thread_begin(uint32_t tidx) override {
    if (tidx != step_tidx_) newborn(tidx).began = true;
  }
  void thread_end(uint32_t tidx) override { (tidx == step_tidx_ ? ended : other_ended) = true; }

  bool ended = false;           // the step's thread ended (OP_EXIT)
  bool other_ended = false;     // the step ended another thread
  std::vector<NewThread> born;  // threads this step began (or wrote registers of)
  std::optional<uint16_t> unencodable;  // first register written that UCIR has no number for
  uint64_t unknowns = 0;        // "became unknown" effects, over the whole trace
  UnknownRanges made_unknown;   // memory those effects named

 private:
  NewThread& newborn(uint32_t tidx);

  fmt::UcirWriter& w_;
  const ArchDesc& arch_;
  fmt::ucir::Uc1RegisterMap numbers_;
  std::map<uint32_t, ThreadRegisters> regs_;  // by thread index
  uint32_t step_tidx_ = 0;
};

}  // namespace ttd::cli
