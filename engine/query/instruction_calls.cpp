// Call/return pairing for instruction traces. Per thread, a call
// instruction opens a frame whose return address is the instruction after
// it; the thread's next step names the callee. A return instruction is
// matched when the thread's next step lands on the return address of an
// open frame (frames above it are unwound, as longjmp does); the return
// value is the return register before the return instruction runs.
#include <algorithm>
#include <optional>

#include "state/target_value.h"
#include "engine/index_file.h"
#include "engine/keyframe_codec.h"
#include "engine/query/call_book.h"
#include "engine/query/call_walkers.h"
#include "engine/query/chunk_reader.h"
#include "engine/query/pc_class_cache.h"

namespace ttd::query {

namespace {

enum class Pending : uint8_t { None, Call, Return, MaybeReturn };

struct ThreadTrack {
  Pending pending = Pending::None;
  uint64_t pend_eid = 0;
  std::optional<uint64_t> pend_value;
  uint8_t delay = 0;            // mips: steps to wait (the delay slot) before the callee
  std::optional<uint64_t> ret;  // return register, valid when fresh
  bool fresh = false;           // ret reflects every write since a decoded chunk start
};

uint64_t to_u64(const ArchDesc& a, const uint8_t* v, uint64_t len) {
  return target_value_u64(a.endian, v, size_t(len));
}

std::optional<uint16_t> return_register(const ArchDesc& a) {
  switch (a.id) {
    case ArchId::X86_64: return a.find("rax");
    case ArchId::I386: return a.find("eax");
    case ArchId::AArch64: return a.find("x0");
    case ArchId::Arm: return a.find("r0");
    case ArchId::Mips: return a.find("v0");
    case ArchId::Ppc32: return a.find("r3");
  }
  return std::nullopt;
}

// Tracks the return register of every thread, and whether the step looks
// like a call when its code is unknown (it pushed, or put in the link
// register, the address of the next instruction).
struct EffectTracker : EffectVisitor {
  const ArchDesc* arch = nullptr;
  std::vector<ThreadTrack>* threads = nullptr;
  std::optional<uint16_t> ret_reg, link_reg;
  uint64_t expect_return_addr = 0;
  bool watch_call = false, call_like = false;

  ThreadTrack& thread(uint32_t tidx) { return (*threads)[tidx]; }  // sized to the thread table
  void reg(uint32_t tidx, uint16_t reg, const uint8_t* v, uint32_t len) override {
    if (ret_reg && reg == *ret_reg) {
      ThreadTrack& t = thread(tidx);
      t.ret = to_u64(*arch, v, len);
      t.fresh = true;
    }
    if (watch_call && link_reg && reg == *link_reg && to_u64(*arch, v, len) == expect_return_addr) call_like = true;
  }
  void reg_unknown(uint32_t tidx, uint16_t reg) override {
    if (ret_reg && reg == *ret_reg) {
      ThreadTrack& t = thread(tidx);
      t.ret.reset();
      t.fresh = true;
    }
  }
  void mem_write(uint64_t, uint64_t, const uint8_t* bytes, uint64_t len) override {
    if (watch_call && !link_reg && len == arch->ptr_size && to_u64(*arch, bytes, len) == expect_return_addr) call_like = true;
  }
};

class InstructionCallWalker : public CallWalker {
 public:
  InstructionCallWalker(std::shared_ptr<const Trace> t, CallQuery q)
      : t_(std::move(t)), q_(std::move(q)), book_(q_), reader_(*t_), classes_(*t_) {
    const ArchDesc& a = t_->arch();
    tracker_.arch = &a;
    tracker_.threads = &threads_;
    tracker_.ret_reg = return_register(a);
    if (a.id == ArchId::AArch64) tracker_.link_reg = a.find("x30");
    if (a.id == ArchId::Arm) tracker_.link_reg = a.find("lr");
    if (a.id == ArchId::Mips) tracker_.link_reg = a.find("ra");
    if (a.id == ArchId::Ppc32) tracker_.link_reg = a.find("lr");
    // Sized up front: trackers hand out references while effects decode.
    threads_.resize(t_->index().thread_slots().size());
    next_chunk_ = reader_.chunk_of(q_.window.from);
    last_chunk_ = reader_.chunk_of(q_.window.to - 1);
  }

  Result<std::optional<Call>> next() override {
    for (;;) {
      if (auto c = book_.pop_ready()) return std::optional<Call>(std::move(*c));
      if (done_) return std::optional<Call>();
      if (auto s = advance(); !s) return s.error();
    }
  }
  const CallStats& stats() const override { return book_.stats(); }

 private:
  bool has_pending_thread(const ChunkSummary& s) const {
    for (uint32_t tidx : s.threads)
      if (tidx < threads_.size() && threads_[tidx].pending != Pending::None) return true;
    return false;
  }

  Status advance() {
    if (next_chunk_ > last_chunk_ || reader_.chunk_count() == 0) return finish();
    if (q_.cancel && q_.cancel()) return interrupted_error();
    size_t c = next_chunk_++;
    const auto summary = reader_.summary(c);
    if (auto s = classes_.prepare(c); !s) return s;
    book_.stats().pcs_classified = classes_.classified();
    book_.stats().pcs_unknown = classes_.unknown();
    book_.stats().pcs_from_program = classes_.from_program();
    bool first = !started_;
    if (!first && !has_pending_thread(*summary) && !classes_.may_call_or_return(c)) {
      ++book_.stats().chunks_skipped;
      for (auto& th : threads_) th.fresh = false;
      return {};
    }
    started_ = true;
    ++book_.stats().chunks_decoded;
    keyframe_.reset();
    if (auto s = reader_.load(c); !s) return s;
    while (reader_.next()) {
      const StepView& s = reader_.step();
      if (s.eid >= q_.window.to) break;
      if (s.eid < q_.window.from) {  // only the register history before the window
        tracker_.watch_call = false;
        if (!reader_.effects(tracker_)) break;
        continue;
      }
      if (auto st = on_step(s); !st) return st;
    }
    if (auto s = reader_.status(); !s) return s;
    return {};
  }

  Status on_step(const StepView& s) {
    ThreadTrack& th = tracker_.thread(s.tidx);
    resolve_pending(s, th);
    InsnClass cls = s.size ? classes_.get(s.pc) : InsnClass::Other;
    if (cls == InsnClass::Unknown) ++book_.stats().unclassified_steps;
    std::optional<uint64_t> ret_before;
    if (cls == InsnClass::Return || cls == InsnClass::Unknown) {
      auto v = return_value(s.tidx, s.tid);
      if (!v) return v.error();
      ret_before = *v;
    }
    uint64_t return_addr = s.pc + s.size + (t_->arch().id == ArchId::Mips ? 4 : 0);
    tracker_.watch_call = cls == InsnClass::Unknown;
    tracker_.call_like = false;
    tracker_.expect_return_addr = return_addr;
    if (!reader_.effects(tracker_)) return reader_.status();
    if (cls == InsnClass::Call || (cls == InsnClass::Unknown && tracker_.call_like)) {
      Call c;
      c.tid = s.tid;
      c.call_site = s.pc;
      c.entry_eid = s.eid;
      book_.enter(s.tidx, std::move(c), OpenFrame{~0ull, return_addr, 0});
      th.pending = Pending::Call;
      th.delay = t_->arch().id == ArchId::Mips ? 1 : 0;
    } else if (cls == InsnClass::Return || cls == InsnClass::Unknown) {
      th.pending = cls == InsnClass::Return ? Pending::Return : Pending::MaybeReturn;
      th.pend_eid = s.eid;
      th.pend_value = ret_before;
    }
    return {};
  }

  void resolve_pending(const StepView& s, ThreadTrack& th) {
    switch (th.pending) {
      case Pending::None: return;
      case Pending::Call: {
        if (th.delay) {
          --th.delay;
          return;
        }
        auto& st = book_.stack(s.tidx);
        if (!st.empty()) {
          if (s.pc == st.back().return_addr) {  // `call $+5`: a pc fetch, not a call
            book_.discard(st.back());
            st.pop_back();
          } else {
            book_.set_function(st.back(), s.pc);
          }
        }
        break;
      }
      case Pending::Return:
      case Pending::MaybeReturn: {
        auto& st = book_.stack(s.tidx);
        size_t pos = st.size();
        while (pos > 0 && st[pos - 1].return_addr != s.pc) --pos;
        if (pos > 0)
          book_.exit(s.tidx, pos - 1, th.pend_eid, CallExit::Return, th.pend_value);
        else if (th.pending == Pending::Return)
          ++book_.stats().orphan_returns;
        break;
      }
    }
    th.pending = Pending::None;
  }

  // The return register of a thread before the current step: tracked from
  // effects, or from the chunk's keyframe when chunks were skipped since.
  Result<std::optional<uint64_t>> return_value(uint32_t tidx, uint64_t tid) {
    ThreadTrack& th = tracker_.thread(tidx);
    if (th.fresh || !tracker_.ret_reg) return th.ret;
    if (!keyframe_) {
      const ChunkEntry ch = reader_.chunk(reader_.chunk_of(reader_.step().eid));
      std::string kf;
      MachineState st(t_->arch());
      // Registers only: no page map.
      if (!t_->index().read_blob(ch.keyframe, kf) ||
          !decode_keyframe(reinterpret_cast<const uint8_t*>(kf.data()), kf.size(), nullptr, nullptr, st))
        return corrupt_chunk(*t_, reader_.chunk_of(ch.first_eid));
      keyframe_ = std::move(st);
    }
    const ThreadState* ts = keyframe_->find_thread(tid);
    return ts ? ts->regs.get_u64(*tracker_.ret_reg) : std::nullopt;
  }

  Status finish() {
    // A return whose thread never ran again: assume it left the top frame.
    for (uint32_t tidx = 0; tidx < threads_.size(); ++tidx) {
      ThreadTrack& th = threads_[tidx];
      auto& st = book_.stack(tidx);
      if (th.pending == Pending::Return && !st.empty())
        book_.exit(tidx, st.size() - 1, th.pend_eid, CallExit::Return, th.pend_value);
      th.pending = Pending::None;
    }
    book_.close();
    done_ = true;
    return {};
  }

  std::shared_ptr<const Trace> t_;
  CallQuery q_;
  CallBook book_;
  ChunkReader reader_;
  PcClassCache classes_;
  std::vector<ThreadTrack> threads_;
  EffectTracker tracker_;
  std::optional<MachineState> keyframe_;
  size_t next_chunk_ = 0, last_chunk_ = 0;
  bool started_ = false, done_ = false;
};

}  // namespace

std::unique_ptr<CallWalker> make_instruction_call_walker(std::shared_ptr<const Trace> t, CallQuery q) {
  return std::make_unique<InstructionCallWalker>(std::move(t), std::move(q));
}

}  // namespace ttd::query
