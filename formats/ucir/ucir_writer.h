// Writes usercorn-compatible UCIR traces (as usercorn's trace.go writes
// them: 74-byte header with big-endian version 1, then a snappy framed
// stream of little-endian ops). Used by `ttd record` and by tests.
//
// Usage: create(); keyframe ops between begin_keyframe()/end_keyframe()
// (registers, mappings, memory); then per basic block begin_frame(), jmp(),
// and per instruction its memory ops, its register changes, then step();
// a syscall instruction's step() is followed by begin_syscall() ... ops ...
// end_syscall(). close() flushes and reports I/O errors.
//
// Keyframe memory: usercorn's own keyframes trim zero bytes off each
// mapping's data but keep the base address, so a reader cannot trust a
// single keyframe write at a mapping's base that is shorter than the
// mapping. This writer never produces one: keyframe writes are split at
// 4 KiB page boundaries, and if a mapping would still get exactly one
// write, starting at its base and shorter than the mapping, a one-byte
// zero write follows it (harmless: a mapping is zero-filled and nothing
// else in the keyframe writes there). See docs/formats/ucir.md.
#pragma once
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>

#include "state/arch.h"
#include "state/error.h"

namespace ttd::fmt {

class UcirWriter {
 public:
  // compress_in_background: snappy compression, checksums and file writes
  // run on a worker thread (SnappyFrameWriter's background mode); the calls
  // below still encode on the caller's thread. Same bytes either way.
  static Result<std::unique_ptr<UcirWriter>> create(const std::string& path, ArchId arch,
                                                    std::string_view os = "linux",
                                                    bool compress_in_background = false);
  virtual ~UcirWriter() = default;

  virtual void begin_keyframe() = 0;
  virtual void end_keyframe() = 0;
  virtual void begin_frame() = 0;  // ends the open frame, if any
  // ttd's thread extension (docs/formats/ucir.md, "Threads"). The thread
  // (1 = the first) whose ops follow: frames carry thread - 1 in their pid
  // field, so a trace that never calls this is what usercorn writes. Ends
  // the open frame when the thread changes.
  virtual void set_thread(uint32_t thread) = 0;
  // A keyframe (pid field thread - 1) holding a thread's starting pc (as
  // jmp(pc, 0)) and registers, right after the step that created it;
  // closed by end_keyframe().
  virtual void begin_thread_keyframe(uint32_t thread) = 0;
  virtual void jmp(uint64_t addr, uint32_t block_size) = 0;
  virtual void step(uint8_t size) = 0;
  // Register by index into arch_desc(arch).regs; written with the Unicorn
  // 1.x register number usercorn used. Registers wider than 64 bits go out
  // as OP_SPREG. The pc is not written (UCIR carries it in jmp/step).
  virtual void reg(uint16_t reg_index, std::span<const uint8_t> value_le) = 0;
  virtual void reg_u64(uint16_t reg_index, uint64_t value) = 0;
  virtual void mem_read(uint64_t addr, uint32_t size) = 0;
  virtual void mem_write(uint64_t addr, std::span<const uint8_t> bytes) = 0;
  virtual void mem_map(uint64_t addr, uint64_t size, uint8_t prot, std::string_view desc,
                       std::string_view file = {}, uint64_t file_off = 0, uint64_t file_size = 0) = 0;
  virtual void mem_unmap(uint64_t addr, uint64_t size) = 0;
  virtual void mem_protect(uint64_t addr, uint64_t size, uint8_t prot) = 0;
  virtual void begin_syscall(uint32_t num, uint64_t ret, std::span<const uint64_t> args) = 0;
  virtual void end_syscall() = 0;
  virtual void exit() = 0;
  virtual Status close() = 0;

  // Register writes that could not be encoded (no Unicorn 1.x number for
  // that register, e.g. x86-64 orig_rax or fioff) and were left out.
  virtual uint64_t dropped_registers() const { return 0; }
};

}  // namespace ttd::fmt
