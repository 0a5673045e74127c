#include "formats/ucir/ucir_op_parser.h"

#include <bit>
#include <cstring>

#include "state/byte_order.h"

namespace ttd::fmt::ucir {

namespace {

std::string str(std::string_view s) { return std::string(s); }

// The largest fixed part of any op (MEM_MAP), so one check covers them all.
constexpr size_t kMaxFixed = 1 + kFixedBody[OP_MEM_MAP];

}  // namespace

OpParser::OpParser(OpWindow& window, const ArchDesc& arch, const Uc1RegisterMap& regs, StepAssembler& steps)
    : w_(window), arch_(arch), regs_(regs), steps_(steps) {}

bool OpParser::fail(uint64_t off, const std::string& message) {
  const uint64_t chunk = w_.chunk_file_offset(off);
  error_ = make_error_at(w_.path(), chunk,
                         message + " at op stream offset " + std::to_string(off) +
                             " (decompressed; chunk at file byte " + std::to_string(chunk) + ")");
  return false;
}

bool OpParser::fill_error(const Status& s) {
  error_ = s.error();
  return false;
}

bool OpParser::stream_cut() {
  if (!salvage_tail_) return false;  // a segment's end is no file's end
  // The file ends inside an op, a frame or a syscall: whether its last
  // chunk was cut short or the cut fell on a chunk boundary, the tail is
  // incomplete, not wrong.
  cut_at_ = w_.source().cut_at().value_or(w_.source().position());
  return true;
}

Status OpParser::finish_cut() {
  // What follows the last OP_STEP is an instruction the recording did not
  // finish writing: dropped, not made a marker step.
  steps_.pending().clear();
  if (!cut_at_) cut_at_ = w_.source().cut_at();
  steps_.flush_batch();  // the steps before the revision, as they were read
  if (on_cut_ && cut_at_) on_cut_(*cut_at_);
  steps_.finish();
  return {};
}

Status OpParser::take_error() {
  if (!error_ && cut_at_) return finish_cut();
  Status s = std::move(*error_);
  error_.reset();
  return s;
}

bool OpParser::need_slow(size_t n, uint8_t op, uint64_t off) {
  bool got = false;
  if (Status s = w_.fill(n, got); !s) return fill_error(s);
  if (!got && stream_cut()) return false;
  if (!got)
    return fail(off, "truncated " + str(op_name(op)) + ": needs " + std::to_string(n) +
                         " bytes, the stream ends after " + std::to_string(w_.avail()));
  return true;
}

bool OpParser::range_error(uint64_t size, uint8_t op, uint64_t off) {
  return fail(off, str(op_name(op)) + " range of " + std::to_string(size) +
                       " bytes wraps past the end of the address space");
}

bool OpParser::register_miss(uint16_t num, uint8_t op, uint64_t off, int32_t index) {
  if (index == Uc1RegisterMap::kNoSlot) {
    // A register usercorn knows but our architecture table does not hold:
    // the value has nowhere to go.
    ++ignored_regs_;
    return true;
  }
  return fail(off, str(op_name(op)) + ": register number " + std::to_string(num) +
                       " is not a Unicorn 1.x register ttd knows for " + arch_.name);
}

bool OpParser::parse_effect(uint8_t op, EffectGroup& g, uint64_t off) {
  if (op >= kOpCount) return fail(off, "unknown op " + std::to_string(op));
  const size_t fixed = 1 + kFixedBody[op];
  if (!need(fixed, op, off)) return false;
  const uint8_t* p = w_.cur() + 1;
  switch (op) {
    case OP_NOP: break;
    case OP_EXIT: g.add(OP_EXIT); break;
    case OP_JMP: steps_.set_pc(load_le64(p)); break;
    case OP_REG: {
      int32_t index;
      if (!parse_register(load_le16(p), op, off, index)) return false;
      if (index >= 0) {
        Effect& e = g.add(OP_REG);
        e.reg = uint16_t(index);
        e.size = load_le64(p + 2);
      }
      break;
    }
    case OP_SPREG: {
      const uint16_t size = load_le16(p + 2);
      if (size > kMaxSpRegBytes)
        return fail(off, "OP_SPREG value of " + std::to_string(size) + " bytes is larger than any register (" +
                             std::to_string(kMaxSpRegBytes) + ")");
      int32_t index;
      if (!parse_register(load_le16(p), op, off, index) || !need(fixed + size, op, off)) return false;
      if (index >= 0 && size > 0) {  // an empty value says nothing
        Effect& e = g.add(OP_SPREG);
        e.reg = uint16_t(index);
        g.attach(e, w_.cur() + fixed, size);
      }
      w_.advance(fixed + size);
      return true;
    }
    case OP_MEM_READ: {
      const uint64_t addr = load_le64(p);
      const uint32_t size = load_le32(p + 8);
      if (!check_range(addr, size, op, off)) return false;
      Effect& e = g.add(OP_MEM_READ);
      e.addr = addr;
      e.size = size;
      break;
    }
    case OP_MEM_WRITE: {
      const uint64_t addr = load_le64(p);
      const uint32_t size = load_le32(p + 8);
      if (!check_range(addr, size, op, off) || !need(fixed + size, op, off)) return false;
      Effect& e = g.add(OP_MEM_WRITE);
      e.addr = addr;
      g.attach(e, w_.cur() + fixed, size);
      w_.advance(fixed + size);
      return true;
    }
    case OP_MEM_MAP: {
      const uint64_t addr = load_le64(p), size = load_le64(p + 8);
      const uint8_t prot = p[16];
      const uint64_t file_off = load_le64(p + 17), file_len = load_le64(p + 25);  // read before need() moves the window
      const uint16_t dlen = load_le16(p + 33), flen = load_le16(p + 35);
      if (!check_range(addr, size, op, off) || !need(fixed + dlen + flen, op, off)) return false;
      const uint8_t* text = w_.cur() + fixed;
      Effect& e = g.add(OP_MEM_MAP);
      e.addr = addr;
      e.size = size;
      e.prot = prot;
      // The backing file names a mapping better than usercorn's desc.
      e.reg = flen > 0 ? 1 : 0;
      if (flen > 0) {
        e.file_off = file_off;
        e.file_len = file_len;
        g.attach(e, text + dlen, flen);
      } else {
        g.attach(e, text, dlen);
      }
      w_.advance(fixed + dlen + flen);
      return true;
    }
    case OP_MEM_UNMAP:
    case OP_MEM_PROT: {
      const uint64_t addr = load_le64(p), size = load_le64(p + 8);
      if (!check_range(addr, size, op, off)) return false;
      Effect& e = g.add(op);
      e.addr = addr;
      e.size = size;
      if (op == OP_MEM_PROT) e.prot = p[16];
      break;
    }
    default:
      return fail(off, str(op_name(op)) + " is not allowed here");
  }
  w_.advance(fixed);
  return true;
}

bool OpParser::parse_frame_header(uint8_t op, uint64_t off, uint32_t& count, uint64_t& pid) {
  if (!need(13, op, off)) return false;
  pid = load_le64(w_.cur() + 1);
  count = load_le32(w_.cur() + 9);
  w_.advance(13);
  return true;
}

uint64_t OpParser::thread_of(uint8_t op, uint64_t pid, uint64_t off) {
  if (pid >= kMaxUcirThreads) {
    fail(off, str(op_name(op)) + "'s pid field " + std::to_string(pid) + " names thread " +
                  (pid == UINT64_MAX ? std::string("2^64") : std::to_string(pid + 1)) +
                  "; a trace may name at most " + std::to_string(kMaxUcirThreads) + " threads");
    return 0;
  }
  const uint64_t tid = pid + 1;
  if (!steps_.seen(tid) && steps_.threads_seen() >= kMaxUcirThreads) {
    fail(off, str(op_name(op)) + " names a thread beyond the limit of " + std::to_string(kMaxUcirThreads) +
                  " threads per trace");
    return 0;
  }
  return tid;
}

bool OpParser::parse_keyframe_body(uint32_t count, uint64_t frame_off, EffectGroup& g, bool thread_keyframe) {
  for (uint32_t i = 0; i < count; ++i) {
    const uint64_t off = w_.offset();
    bool got = false;
    if (Status s = w_.fill(1, got); !s) return fill_error(s);
    if (!got && stream_cut()) return false;
    if (!got)
      return fail(frame_off, "op count past the end of the stream: OP_KEYFRAME declares " + std::to_string(count) +
                                 " ops, the stream ends after " + std::to_string(i));
    const uint8_t op = *w_.cur();
    if (op == OP_FRAME || op == OP_KEYFRAME || op == OP_STEP || op == OP_SYSCALL)
      return fail(off, str(op_name(op)) + " inside OP_KEYFRAME (keyframe at op stream offset " +
                           std::to_string(frame_off) + " declared " + std::to_string(count) + " ops, " +
                           std::to_string(i) + " read)");
    if (thread_keyframe && (op == OP_JMP || op == OP_EXIT)) {
      if (!need(1 + kFixedBody[op], op, off)) return false;
      if (op == OP_JMP) g.add(kEffectThreadPc).addr = load_le64(w_.cur() + 1);
      w_.advance(1 + kFixedBody[op]);
      continue;
    }
    if (!parse_effect(op, g, off)) return false;
  }
  return true;
}

Result<bool> OpParser::read_keyframe(EffectGroup& kf) {
  bool got = false;
  if (Status s = w_.fill(1, got); !s) return s.error();
  if (!got || *w_.cur() != OP_KEYFRAME) return false;
  const uint64_t off = w_.offset();
  uint32_t count = 0;
  uint64_t pid = 0;  // the first keyframe is the process's, whatever it says
  if (!parse_frame_header(OP_KEYFRAME, off, count, pid) || !parse_keyframe_body(count, off, kf)) {
    if (!error_ && cut_at_)  // without the whole first keyframe there is no state to read
      return make_error_at(w_.path(), *cut_at_,
                           "trace cut short inside its first keyframe (the recording did not finish): nothing "
                           "readable");
    return take_error().error();
  }
  return true;
}

bool OpParser::parse_syscall(uint64_t off, EffectGroup& sys) {
  if (!need(1 + kFixedBody[OP_SYSCALL], OP_SYSCALL, off)) return false;
  const uint8_t* p = w_.cur() + 1;
  sys.clear();
  sys.syscall = true;
  sys.sys_num = load_le32(p);
  sys.sys_ret = load_le64(p + 4);
  const uint8_t argc = p[12];
  const uint16_t count = load_le16(p + 13);
  const size_t head = 1 + kFixedBody[OP_SYSCALL] + size_t(argc) * 8;
  if (!need(head, OP_SYSCALL, off)) return false;
  p = w_.cur() + 1 + kFixedBody[OP_SYSCALL];
  for (uint8_t i = 0; i < argc; ++i) sys.sys_args.push_back(load_le64(p + 8 * i));
  w_.advance(head);
  for (uint16_t i = 0; i < count; ++i) {
    const uint64_t nested = w_.offset();
    bool got = false;
    if (Status s = w_.fill(1, got); !s) return fill_error(s);
    if (!got && stream_cut()) return false;
    if (!got)
      return fail(off, "op count past the end of the stream: OP_SYSCALL declares " + std::to_string(count) +
                           " ops, the stream ends after " + std::to_string(i));
    const uint8_t op = *w_.cur();
    if (op == OP_FRAME || op == OP_KEYFRAME || op == OP_STEP || op == OP_SYSCALL)
      return fail(nested, str(op_name(op)) + " inside OP_SYSCALL (syscall at op stream offset " +
                              std::to_string(off) + " declared " + std::to_string(count) + " ops, " +
                              std::to_string(i) + " read)");
    if (!parse_effect(op, sys, nested)) return false;
  }
  return true;
}

Status OpParser::run(const Progress& progress, bool to_the_end) {
  Status s = run_ops(progress, to_the_end);
  // A segment's end or an error: the steps read so far reach the sink, as
  // they did one at a time.
  steps_.flush_batch();
  return s;
}

Status OpParser::run_ops(const Progress& progress, bool to_the_end) {
  salvage_tail_ = to_the_end;
  uint32_t frame_left = 0, frame_count = 0;
  uint64_t frame_off = 0;
  uint64_t last_chunks = w_.source().chunks();
  for (;;) {
    if (w_.avail() < kMaxFixed) {
      // Refill once for the common case; near the end each op checks
      // exactly what it needs.
      bool got = false;
      if (Status s = w_.fill(kMaxFixed, got); !s) return s;
      if (w_.avail() == 0) break;
    }
    const uint64_t off = w_.offset();
    const uint8_t* p = w_.cur();
    const uint8_t op = *p;

    if (op == OP_STEP) {  // the most frequent op first
      if (frame_left > 0) --frame_left;
      if (!need(2, op, off)) return take_error();
      steps_.on_step(w_.cur()[1]);
      w_.advance(2);
      continue;
    }
    if (op == OP_FRAME || op == OP_KEYFRAME) {
      if (frame_left > 0) {
        fail(off, "op count past the end of the frame: " + str(op_name(op)) + " inside the frame at op stream offset " +
                      std::to_string(frame_off) + ", which declared " + std::to_string(frame_count) + " ops with " +
                      std::to_string(frame_count - frame_left) + " read");
        return take_error();
      }
      uint32_t count = 0;
      uint64_t pid = 0;
      if (!parse_frame_header(op, off, count, pid)) return take_error();
      if (op == OP_KEYFRAME && pid != 0) {
        // ttd's thread keyframe: a new thread's registers and pc.
        const uint64_t tid = thread_of(op, pid, off);
        kf_scratch_.clear();
        if (!tid || !parse_keyframe_body(count, off, kf_scratch_, true)) return take_error();
        ++thread_keyframes_;
        steps_.on_thread_keyframe(tid, kf_scratch_);
        continue;
      }
      if (op == OP_KEYFRAME) {
        // Only the first keyframe is state; later ones repeat what the
        // frames already say.
        ++extra_keyframes_;
        kf_scratch_.clear();
        if (!parse_keyframe_body(count, off, kf_scratch_)) return take_error();
        continue;
      }
      if (pid != 0 || steps_.threads_seen() > 1) {
        const uint64_t tid = thread_of(op, pid, off);
        if (!tid) return take_error();
        steps_.set_thread(tid);
      }
      ++frames_;
      frame_left = frame_count = count;
      frame_off = off;
      if (progress && w_.source().chunks() - last_chunks >= 16) {  // every MiB or so
        last_chunks = w_.source().chunks();
        if (!progress(w_.source().position(), w_.source().file_size()))
          return make_error_at(w_.path(), w_.source().position(), "read cancelled");
      }
      continue;
    }
    if (frame_left > 0) --frame_left;
    if (op == OP_REG && w_.avail() >= 11) {  // the most frequent effect, inline
      const int32_t index = regs_.index_of(load_le16(p + 1));
      if (index >= 0) {
        steps_.pending_reg(uint16_t(index), load_le64(p + 3));
        w_.advance(11);
        steps_.note_op();
        continue;
      }
    }
    // Memory accesses, the next most frequent, inline too when whole in
    // the window and well-formed (parse_effect reports what is not).
    if ((op == OP_MEM_READ || op == OP_MEM_WRITE) && w_.avail() >= 13) {
      const uint64_t addr = load_le64(p + 1);
      const uint32_t size = load_le32(p + 9);
      if ((size == 0 || addr + (size - 1) >= addr) && (op == OP_MEM_READ || w_.avail() - 13 >= size)) {
        if (op == OP_MEM_READ) {
          steps_.pending_read(addr, size);
          w_.advance(13);
        } else {
          steps_.pending_write(addr, p + 13, size);
          w_.advance(13 + size);
        }
        steps_.note_op();
        continue;
      }
    }
    if (op == OP_JMP && w_.avail() >= 1 + kFixedBody[OP_JMP]) {  // a block's start: no effect, so the pending ones stay batched
      steps_.set_pc(load_le64(p + 1));
      w_.advance(1 + kFixedBody[OP_JMP]);
      steps_.note_op();
      continue;
    }
    if (op == OP_SYSCALL) {
      if (!parse_syscall(off, sys_scratch_)) return take_error();
      steps_.on_syscall(sys_scratch_);
    } else if (op == OP_NOP) {
      w_.advance(1);
    } else {
      if (!parse_effect(op, steps_.pending(), off)) return take_error();
      steps_.note_op();
    }
  }
  if (!to_the_end) return {};
  // Ended at an op's end in a last chunk cut short, or inside a frame.
  if (w_.source().cut_at()) return finish_cut();
  if (frame_left > 0 && stream_cut()) return finish_cut();
  if (frame_left > 0) {
    fail(frame_off, "op count past the end of the stream: OP_FRAME declares " + std::to_string(frame_count) +
                        " ops, the stream ends after " + std::to_string(frame_count - frame_left));
    return take_error();
  }
  // A last report, so callers see the whole file done.
  if (progress && !progress(w_.source().position(), w_.source().file_size()))
    return make_error_at(w_.path(), w_.source().position(), "read cancelled");
  steps_.flush_batch();
  if (on_end_) on_end_();
  steps_.finish();
  return {};
}

}  // namespace ttd::fmt::ucir
