#include "tools/ttd/ucir_trace_writer.h"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <map>

#include "engine/cursor.h"
#include "engine/export/output_stream.h"
#include "engine/step_stream.h"
#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_ops.h"
#include "formats/ucir/ucir_writer.h"
#include "tools/ttd/ucir_effect_forwarder.h"

namespace ttd::cli {

namespace {

// Linux syscall ABI registers (number, arguments, result) for the steps
// whose trace gives no syscall attributes.
struct SyscallRegs {
  const char* number;
  std::array<const char*, 6> args;
};
std::optional<SyscallRegs> syscall_regs(ArchId a) {
  switch (a) {
    case ArchId::X86_64: return SyscallRegs{"rax", {"rdi", "rsi", "rdx", "r10", "r8", "r9"}};
    case ArchId::AArch64: return SyscallRegs{"x8", {"x0", "x1", "x2", "x3", "x4", "x5"}};
    case ArchId::I386: return SyscallRegs{"eax", {"ebx", "ecx", "edx", "esi", "edi", "ebp"}};
    case ArchId::Arm: return SyscallRegs{"r7", {"r0", "r1", "r2", "r3", "r4", "r5"}};
    case ArchId::Ppc32: return SyscallRegs{"r0", {"r3", "r4", "r5", "r6", "r7", "r8"}};
    default: return std::nullopt;
  }
}

bool is_event(fmt::StepKind k) { return k != fmt::StepKind::Instruction && k != fmt::StepKind::Syscall; }

Error refuse(const Trace& t, const std::string& why) { return make_error(t.path(), "cannot convert to UCIR: " + why); }

Error unencodable(const Trace& t, uint16_t r, const std::string& where) {
  return refuse(t, where + " register " + t.arch().regs[r].name + ", which UCIR has no number for on " + t.arch().name +
                       "; it would be lost");
}

// The stream of ops for one conversion, step by step. A step's OP_STEP
// (or the end of its OP_SYSCALL) is written only when the next step that
// goes out is met, so dropped events between them can add their effects.
class UcirConversion {
 public:
  UcirConversion(std::shared_ptr<const Trace> t, fmt::UcirWriter& w, const UcirConvertOptions& o)
      : t_(t), arch_(t->arch()), w_(w), o_(o), reader_(*t), cursor_(t), fwd_(w, arch_), abi_(syscall_regs(arch_.id)) {}

  Status run();
  UcirConvertResult& result() { return res_; }

 private:
  Status step(const StreamStep& s);
  Status write_keyframe(const StreamStep& s);
  Status write_other_threads(const StreamStep& s);
  void open_frame(const StreamStep& s);
  Status begin_syscall(const StreamStep& s);
  Status forward_effects(const StreamStep& s, const char* what);
  Status finish_step(bool last);
  Status write_thread_keyframes(uint64_t eid);
  uint32_t number(uint32_t tidx);

  std::shared_ptr<const Trace> t_;
  const ArchDesc& arch_;
  fmt::UcirWriter& w_;
  const UcirConvertOptions& o_;
  StepStream reader_;
  Cursor cursor_;
  UcirEffectForwarder fwd_;
  std::optional<SyscallRegs> abi_;
  UcirConvertResult res_;
  uint64_t pid_ = 0;
  bool keyframe_written_ = false;
  // UCIR thread n (1 = the first step's) is the n-th thread met, as a
  // step's thread or begun by a step; thread_of_ holds n by thread index.
  std::map<uint32_t, uint32_t> thread_of_;
  uint64_t next_pc_ = 0;
  bool continues_ = false;  // next_pc_ is where the frame being written goes on
  uint32_t current_ = 0;    // the UCIR thread of the frame being written
  // The step written last, whose OP_STEP / end of OP_SYSCALL is pending.
  struct Pending {
    uint64_t eid = 0;
    fmt::StepKind kind = fmt::StepKind::Instruction;
    uint8_t size = 0;
  };
  std::optional<Pending> pending_;
};

uint32_t UcirConversion::number(uint32_t tidx) {
  auto [it, added] = thread_of_.emplace(tidx, uint32_t(thread_of_.size() + 1));
  if (added) res_.source_tids.push_back(tidx < t_->threads().size() ? t_->threads()[tidx].tid : 0);
  return it->second;
}

Status UcirConversion::run() {
  while (reader_.next())
    if (auto s = step(reader_.step()); !s) return s;
  if (auto s = reader_.status(); !s) return s;
  if (!pending_)
    return refuse(*t_, "the trace has no instruction steps (all " + std::to_string(res_.events_dropped) +
                           " are events, which carry no machine state UCIR can hold)");
  if (auto s = finish_step(true); !s) return s;
  res_.eids.output_steps = res_.steps;
  res_.eids.source_steps = t_->step_count();
  res_.unknowns_dropped = fwd_.unknowns;
  res_.made_unknown = std::move(fwd_.made_unknown);
  return {};
}

Status UcirConversion::step(const StreamStep& s) {
  if (s.pid != pid_ && keyframe_written_)
    return refuse(*t_, "EID " + std::to_string(s.eid) + " is in another process; UCIR holds one");
  if (is_event(s.kind)) {
    if (!o_.drop_events)
      return refuse(*t_, "EID " + std::to_string(s.eid) + " is an event (" + std::string(fmt::step_kind_name(s.kind)) +
                             "); UCIR holds instructions only (--drop-events leaves events out, keeping their "
                             "effects on the state)");
    ++res_.events_dropped;
    if (pending_) return forward_effects(s, "the dropped event at");
    // Before the first step written the keyframe holds the event's
    // effects; they are decoded all the same, since a chunk's effects are
    // delta-coded from step to step (engine/chunk_steps.h).
    struct Ignore : EffectVisitor {
      void reg(uint32_t, uint16_t, const uint8_t*, uint32_t) override {}
      void mem_write(uint64_t, uint64_t, const uint8_t*, uint64_t) override {}
    } ignore;
    return reader_.effects(ignore) ? Status{} : reader_.status();
  }
  if (pending_)
    if (auto st = finish_step(false); !st) return st;
  if (!keyframe_written_)
    if (auto st = write_keyframe(s); !st) return st;
  res_.eids.add(res_.steps, s.eid);
  open_frame(s);
  fwd_.start(s.tidx);
  pending_ = Pending{s.eid, s.kind, uint8_t(std::min<uint32_t>(s.size, 255))};
  if (s.kind == fmt::StepKind::Syscall)
    if (auto st = begin_syscall(s); !st) return st;
  return forward_effects(s, "EID");
}

// The state before the first step written: the thread's registers, the
// mappings and every known byte (not zero pages inside a mapping, which
// UCIR's mappings zero-fill).
Status UcirConversion::write_keyframe(const StreamStep& s) {
  if (auto st = cursor_.seek(s.eid); !st) return st;
  auto first = cursor_.current_step();
  if (!first || first->tid != s.tid)
    return make_error(t_->path(), "EID " + std::to_string(s.eid) + ": the cursor and the index disagree on the step's thread");
  pid_ = s.pid;
  const MachineState& st = cursor_.state();
  number(s.tidx);
  auto& regs = fwd_.regs_of(s.tidx);
  w_.begin_keyframe();
  fwd_.start(s.tidx);
  if (const ThreadState* th = st.find_thread(s.tid)) {
    for (uint16_t i = 0; i < arch_.regs.size(); ++i) {
      if (i == arch_.pc_index || !th->regs.valid(i)) continue;
      auto b = th->regs.bytes(i);
      fwd_.write_reg(i, b);
      if (fwd_.unencodable) return unencodable(*t_, *fwd_.unencodable, "EID " + std::to_string(s.eid) + " knows the");
      regs[i] = register_u64(arch_, b);
    }
  }
  if (const ProcessState* p = st.find_process(s.pid)) {
    for (const auto& [start, r] : p->regions.all()) w_.mem_map(r.start, r.size, r.prot, r.name);
    std::vector<uint64_t> nos;
    for (const auto& [no, page] : p->memory.pages())
      if (!page->none_valid()) nos.push_back(no);
    std::sort(nos.begin(), nos.end());
    std::vector<uint8_t> buf(kPageSize), valid(kPageSize);
    for (uint64_t no : nos) {
      const uint64_t base = no << kPageShift;
      p->memory.read(base, buf.data(), valid.data(), kPageSize);
      const bool all_zero = std::all_of(buf.begin(), buf.end(), [](uint8_t b) { return b == 0; });
      const bool all_valid = std::all_of(valid.begin(), valid.end(), [](uint8_t v) { return v != 0; });
      const MemoryRegion* r = p->regions.find(base);
      if (all_zero && all_valid && r && r->start <= base && base + kPageSize <= r->start + r->size) continue;
      for (uint64_t i = 0; i < kPageSize;) {
        if (!valid[i]) {
          ++i;
          continue;
        }
        uint64_t j = i;
        while (j < kPageSize && valid[j]) ++j;
        w_.mem_write(base + i, {buf.data() + i, size_t(j - i)});
        i = j;
      }
    }
  }
  w_.end_keyframe();
  keyframe_written_ = true;
  return write_other_threads(s);
}

// Threads alive before the first step written, other than its own (e.g.
// UMTracer's, all begun by events before the first instruction): a thread
// keyframe each, before any step, which the reader applies to the state
// before EID 0 (docs/formats/ucir.md, "Threads").
Status UcirConversion::write_other_threads(const StreamStep& s) {
  const MachineState& st = cursor_.state();
  const auto& tids = t_->threads();
  for (const auto& [tid, th] : st.threads()) {
    if (tid == s.tid) continue;
    uint32_t tidx = 0;
    while (tidx < tids.size() && tids[tidx].tid != tid) ++tidx;
    if (tidx == tids.size())
      return make_error(t_->path(), "EID " + std::to_string(s.eid) + ": thread " + std::to_string(tid) +
                                        " is alive but not among the trace's threads");
    w_.begin_thread_keyframe(number(tidx));
    w_.jmp(th.regs.valid(arch_.pc_index) ? register_u64(arch_, th.regs.bytes(arch_.pc_index)) : 0, 0);
    auto& regs = fwd_.regs_of(tidx);
    for (uint16_t i = 0; i < arch_.regs.size(); ++i) {
      if (i == arch_.pc_index || !th.regs.valid(i)) continue;
      auto b = th.regs.bytes(i);
      fwd_.write_reg(i, b);
      if (fwd_.unencodable)
        return unencodable(*t_, *fwd_.unencodable, "EID " + std::to_string(s.eid) + ": thread " + std::to_string(tid) + " knows the");
      regs[i] = register_u64(arch_, b);
    }
    w_.end_keyframe();
  }
  return {};
}

// A frame names its thread; every switch starts one, with a jump (the
// reader keeps one pc for the stream, not one per thread), and so does a
// pc that does not follow on.
void UcirConversion::open_frame(const StreamStep& s) {
  const uint32_t n = number(s.tidx);
  if (n != current_) {
    w_.set_thread(n);
    current_ = n;
    continues_ = false;
  }
  if (!continues_ || next_pc_ != s.pc) {
    w_.begin_frame();
    w_.jmp(s.pc, 0);
  }
  next_pc_ = s.pc + s.size;
  continues_ = true;
}

// OP_STEP and the OP_SYSCALL that holds the step's effects, with the
// syscall's facts: its attributes, else the ABI registers before the step
// (the result is not known before it).
Status UcirConversion::begin_syscall(const StreamStep& s) {
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
  if (!reader_.attrs(attrs)) return reader_.status();
  const auto k_sys = reader_.attr_key("syscall"), k_args = reader_.attr_key("args"), k_ret = reader_.attr_key("ret");
  uint64_t num = 0, ret = 0;
  std::vector<uint64_t> args;
  bool have_num = false;
  for (const auto& [k, v] : attrs) {
    if (k_sys && k == *k_sys && std::holds_alternative<uint64_t>(v)) num = std::get<uint64_t>(v), have_num = true;
    if (k_args && k == *k_args && std::holds_alternative<std::vector<uint64_t>>(v)) args = std::get<std::vector<uint64_t>>(v);
    if (k_ret && k == *k_ret) {
      if (auto* u = std::get_if<uint64_t>(&v)) ret = *u;
      if (auto* i = std::get_if<int64_t>(&v)) ret = uint64_t(*i);
    }
  }
  if (!have_num && abi_) {
    const auto& rf = fwd_.regs_of(s.tidx);
    if (auto r = arch_.find(abi_->number); r && rf[*r]) num = *rf[*r];
    args.clear();
    for (const char* a : abi_->args)
      if (auto r = arch_.find(a)) args.push_back(rf[*r].value_or(0));
  }
  w_.step(pending_->size);
  w_.begin_syscall(uint32_t(num), ret, args);
  return {};
}

Status UcirConversion::forward_effects(const StreamStep& s, const char* what) {
  if (!reader_.effects(fwd_)) return reader_.status();
  if (fwd_.unencodable) return unencodable(*t_, *fwd_.unencodable, std::string(what) + " " + std::to_string(s.eid) + " writes the");
  return {};
}

// Ends the pending step: OP_EXIT if its thread ended (before OP_STEP: an
// OP_EXIT after it would belong to the next step), OP_STEP or the end of
// its OP_SYSCALL, then keyframes of the threads it began.
Status UcirConversion::finish_step(bool last) {
  const Pending p = *pending_;
  pending_.reset();
  if (fwd_.ended) w_.exit();
  if (p.kind == fmt::StepKind::Syscall)
    w_.end_syscall();
  else
    w_.step(p.size);
  // The last step's exit ends every thread (the reader says so too);
  // elsewhere UCIR cannot say that one thread ended another.
  if (fwd_.other_ended && !(fwd_.ended && last))
    return refuse(*t_, "EID " + std::to_string(p.eid) + " ends another thread than its own; UCIR cannot say that");
  if (auto s = write_thread_keyframes(p.eid); !s) return s;
  ++res_.steps;
  return {};
}

// The thread keyframe right after the step that began a thread: its pc
// (0 when the trace gives none) and registers.
Status UcirConversion::write_thread_keyframes(uint64_t eid) {
  for (const auto& nb : fwd_.born) {
    // A thread already met whose registers another thread's step writes
    // (not a new thread's start): UCIR has no op for that.
    if (!nb.began && thread_of_.count(nb.tidx))
      return refuse(*t_, "EID " + std::to_string(eid) + " writes registers of another running thread; UCIR cannot say that");
    const uint32_t m = number(nb.tidx);
    uint64_t start_pc = 0;
    for (const auto& [r, v] : nb.regs)
      if (r == arch_.pc_index) start_pc = register_u64(arch_, v);
    w_.begin_thread_keyframe(m);
    w_.jmp(start_pc, 0);
    for (const auto& [r, v] : nb.regs) {
      fwd_.write_reg(r, v);
      if (fwd_.unencodable) return unencodable(*t_, *fwd_.unencodable, "EID " + std::to_string(eid) + " writes the");
    }
    w_.end_keyframe();
    current_ = 0;  // the next step opens a frame of its thread
    continues_ = false;
  }
  fwd_.born.clear();
  return {};
}

}  // namespace

Result<UcirConvertResult> write_ucir(std::shared_ptr<const Trace> t, const std::string& path,
                                     const UcirConvertOptions& options) {
  if (t->step_count() == 0) return refuse(*t, "the trace has no steps");
  if (fmt::ucir::uc1_register_table(t->arch().id).empty())
    return refuse(*t, "UCIR has no register numbers for " + t->arch().name);
  if (t->threads().size() > fmt::ucir::kMaxUcirThreads)
    return refuse(*t, "the trace has " + std::to_string(t->threads().size()) + " threads; UCIR holds at most " +
                          std::to_string(fmt::ucir::kMaxUcirThreads));
  if (path.empty() || path == "-") return make_error("OUT", "UCIR is written to a file, not to standard output");

  const std::string temp = exporting::temp_name_beside(path);
  auto created = fmt::UcirWriter::create(temp, t->arch().id, t->info().os.empty() ? "linux" : t->info().os);
  if (!created) return created.error();
  std::unique_ptr<fmt::UcirWriter> w = std::move(*created);
  struct TempRemover {
    const std::string& p;
    bool keep = false;
    ~TempRemover() {
      if (!keep) ::unlink(p.c_str());
    }
  } remover{temp};

  UcirConversion conversion(t, *w, options);
  if (auto s = conversion.run(); !s) return s.error();
  // The forwarder refuses what has no number; a write the writer still
  // dropped is a bug here, not a loss to report.
  if (w->dropped_registers())
    return make_error(t->path(), "internal error: " + std::to_string(w->dropped_registers()) + " register writes dropped");
  if (auto s = w->close(); !s)
    return make_error(path, "writing failed (" + s.error().to_string() + "); the partial file was removed");
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    return make_error(path, "cannot rename " + temp + " into place: " + std::strerror(errno));
  remover.keep = true;
  return std::move(conversion.result());
}

}  // namespace ttd::cli
