// Writes usercorn-compatible UCIR traces (as usercorn's trace.go writes
// them: 74-byte header with big-endian version 1, then a snappy framed
// stream of little-endian ops). Used by `ttd record` and by tests.
//
// Usage: create(); keyframe ops between begin_keyframe()/end_keyframe()
// (registers, mappings, memory); then per basic block block() (or
// begin_frame() and jmp()), and per instruction its memory ops, its register changes, then step();
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
#include <cstring>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "formats/ucir/ucir_op_encoder.h"
#include "state/arch.h"
#include "state/byte_order.h"
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
  // A basic block starts: its OP_JMP goes into the open frame, and a new
  // frame starts only when that one holds kBlockFrameBytes or more (or none
  // is open). usercorn's writer usually opens a frame per block, but
  // readers take frames as containers of ops, and a 13-byte OP_FRAME per
  // block was a tenth of a recording's bytes (docs/performance.md).
  virtual void block(uint64_t addr, uint32_t block_size) = 0;
  static constexpr size_t kBlockFrameBytes = 16 << 10;
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
  // Ends the file with ttd's end record (ucir_end_record.h): `ending` says
  // how the recording ended ("exited with status 0"; empty: "complete").
  // A file without it (cut short) is reported so by the reader.
  virtual Status close(std::string_view ending = {}) = 0;

  // Register writes that could not be encoded (no Unicorn 1.x number for
  // that register, e.g. x86-64 orig_rax or fioff) and were left out.
  virtual uint64_t dropped_registers() const { return 0; }

  // The recorder's per-instruction ops without a virtual call: the same
  // bytes as step(), reg() and mem_read(), encoded inline when a frame is
  // open and no syscall is (the common case), else handed to those.
  void step_inline(uint8_t size) {
    if (kind_ != ucir::OP_FRAME || in_syscall_ || frame_.size() >= kFrameSplitBytes) return step(size);
    uint8_t* p = frame_.extend(2);
    p[0] = ucir::OP_STEP;
    p[1] = size;
    ++frame_ops_;
  }
  [[gnu::always_inline]] void reg_inline(uint16_t reg_index, std::span<const uint8_t> value_le) {
    if (kind_ == 0 || in_syscall_ || reg_index >= codes_.size() || codes_[reg_index].width > 8 ||
        codes_[reg_index].number < 0 || value_le.size() > 8)
      return reg(reg_index, value_le);
    const uint64_t v = value_le.size() == 8 ? load_le64(value_le.data()) : load_le(value_le.data(), value_le.size());
    uint8_t* p = frame_.extend(11);
    p[0] = ucir::OP_REG;
    store_le16(p + 1, uint16_t(codes_[reg_index].number));
    store_le64(p + 3, v);
    ++frame_ops_;
  }
  void mem_read_inline(uint64_t addr, uint32_t size) {
    if (kind_ == 0 || in_syscall_) return mem_read(addr, size);
    uint8_t* p = frame_.extend(13);
    p[0] = ucir::OP_MEM_READ;
    store_le64(p + 1, addr);
    store_le32(p + 9, size);
    ++frame_ops_;
  }
  // `n` <= 8 bytes written by one instruction.
  void mem_write_inline(uint64_t addr, const uint8_t* bytes, uint32_t n) {
    if (kind_ != ucir::OP_FRAME || in_syscall_ || n == 0 || n > 8) return mem_write(addr, {bytes, n});
    uint8_t* p = frame_.extend(13 + n);
    p[0] = ucir::OP_MEM_WRITE;
    store_le64(p + 1, addr);
    store_le32(p + 9, n);
    std::memcpy(p + 13, bytes, n);
    ++frame_ops_;
  }

 protected:
  // The open frame, shared with the inline paths above (ucir_writer.cpp
  // keeps it).
  static constexpr size_t kFrameSplitBytes = 1 << 20;  // bound the frame buffer when the caller never starts frames
  struct RegCode {
    int32_t number;  // Unicorn 1.x number, -1: not writable in UCIR (or the pc)
    uint32_t width;
  };
  uint8_t kind_ = 0;  // 0: no frame open, else OP_FRAME / OP_KEYFRAME
  bool in_syscall_ = false;
  ucir::OpBuffer frame_;
  uint32_t frame_ops_ = 0;
  std::vector<RegCode> codes_;  // by register index
};

}  // namespace ttd::fmt
