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
#include "engine/query/chunk_reader.h"
#include "formats/ucir/uc1_registers.h"
#include "formats/ucir/ucir_ops.h"
#include "formats/ucir/ucir_writer.h"
#include "state/byte_order.h"

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
    default: return std::nullopt;
  }
}

uint64_t to_u64(const ArchDesc& a, const uint8_t* v, size_t n) {
  n = std::min<size_t>(n, 8);
  uint64_t x = 0;
  for (size_t i = 0; i < n; ++i) x |= uint64_t(v[a.endian == Endian::Little ? i : n - 1 - i]) << (8 * i);
  return x;
}

// Streams one step's effects into the writer. Effects of the step's own
// thread go out as they come; another thread's (its thread_begin and the
// registers it starts with, e.g. in a clone step) are held for the thread
// keyframe that follows the step. Tracks each thread's registers as
// integers (for the syscall ABI fallback) and the effects UCIR cannot hold.
struct EffectForwarder : EffectVisitor {
  struct NewThread {
    uint32_t tidx = 0;
    bool began = false;  // a thread_begin, not only register writes
    std::vector<std::pair<uint16_t, std::vector<uint8_t>>> regs;
  };
  fmt::UcirWriter* w = nullptr;
  const ArchDesc* arch = nullptr;
  std::map<uint32_t, std::vector<std::optional<uint64_t>>>* regs = nullptr;  // by thread index
  uint64_t* unknowns = nullptr;
  uint32_t step_tidx = 0;
  bool ended = false;           // the step's thread ended (OP_EXIT)
  bool other_ended = false;     // the step ended another thread
  std::vector<NewThread> born;  // threads this step began

  std::vector<std::optional<uint64_t>>& regs_of(uint32_t tidx) {
    auto it = regs->find(tidx);
    if (it == regs->end()) it = regs->emplace(tidx, std::vector<std::optional<uint64_t>>(arch->regs.size())).first;
    return it->second;
  }
  NewThread& newborn(uint32_t tidx) {
    for (auto& n : born)
      if (n.tidx == tidx) return n;
    born.push_back({tidx, false, {}});
    return born.back();
  }
  void start(uint32_t tidx) {
    step_tidx = tidx, ended = other_ended = false;
    born.clear();
  }

  void reg(uint32_t tidx, uint16_t r, const uint8_t* v, uint32_t len) override {
    if (tidx == step_tidx)
      w->reg(r, {v, len});
    else
      newborn(tidx).regs.emplace_back(r, std::vector<uint8_t>(v, v + len));
    auto& rf = regs_of(tidx);
    if (r < rf.size()) rf[r] = to_u64(*arch, v, len);
  }
  void reg_unknown(uint32_t tidx, uint16_t r) override {
    ++*unknowns;
    auto& rf = regs_of(tidx);
    if (r < rf.size()) rf[r].reset();
  }
  void mem_write(uint64_t, uint64_t addr, const uint8_t* bytes, uint64_t len) override { w->mem_write(addr, {bytes, len}); }
  void mem_read(uint64_t, uint64_t addr, uint64_t size, const uint8_t*) override {
    for (uint64_t done = 0; done < size;) {  // UCIR's read size is a u32
      const uint32_t n = uint32_t(std::min<uint64_t>(size - done, 1u << 30));
      w->mem_read(addr + done, n);
      done += n;
    }
  }
  void mem_unknown(uint64_t, uint64_t, uint64_t) override { ++*unknowns; }
  void mem_map(uint64_t, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override {
    w->mem_map(addr, size, prot, name);
  }
  void mem_unmap(uint64_t, uint64_t addr, uint64_t size) override { w->mem_unmap(addr, size); }
  void mem_protect(uint64_t, uint64_t addr, uint64_t size, uint8_t prot) override { w->mem_protect(addr, size, prot); }
  void thread_begin(uint32_t tidx) override {
    if (tidx != step_tidx) newborn(tidx).began = true;
  }
  void thread_end(uint32_t tidx) override { (tidx == step_tidx ? ended : other_ended) = true; }
};

Status write_keyframe(fmt::UcirWriter& w, const MachineState& st, uint64_t tid, uint64_t pid,
                      std::vector<std::optional<uint64_t>>& regs) {
  const ArchDesc& arch = st.arch();
  w.begin_keyframe();
  if (const ThreadState* th = st.find_thread(tid)) {
    for (uint16_t i = 0; i < arch.regs.size(); ++i) {
      if (i == arch.pc_index || !th->regs.valid(i)) continue;
      auto b = th->regs.bytes(i);
      w.reg(i, b);
      regs[i] = to_u64(arch, b.data(), b.size());
    }
  }
  if (const ProcessState* p = st.find_process(pid)) {
    for (const auto& [start, r] : p->regions.all()) w.mem_map(r.start, r.size, r.prot, r.name);
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
      // A mapping zero-fills its pages: a fully known zero page inside one
      // needs no bytes.
      if (all_zero && all_valid && r && r->start <= base && base + kPageSize <= r->start + r->size) continue;
      for (uint64_t i = 0; i < kPageSize;) {
        if (!valid[i]) {
          ++i;
          continue;
        }
        uint64_t j = i;
        while (j < kPageSize && valid[j]) ++j;
        w.mem_write(base + i, {buf.data() + i, size_t(j - i)});
        i = j;
      }
    }
  }
  w.end_keyframe();
  return {};
}

Error refuse(const Trace& t, const std::string& why) { return make_error(t.path(), "cannot convert to UCIR: " + why); }

}  // namespace

Result<UcirConvertResult> write_ucir(std::shared_ptr<const Trace> t, const std::string& path) {
  const ArchDesc& arch = t->arch();
  if (t->step_count() == 0) return refuse(*t, "the trace has no steps");
  if (fmt::ucir::uc1_register_table(arch.id).empty())
    return refuse(*t, "UCIR numbers registers as Unicorn 1.x did, which has no numbers for " + arch.name +
                          " (usercorn never traced it): every register value would be lost");
  if (t->threads().size() > fmt::ucir::kMaxUcirThreads)
    return refuse(*t, "the trace has " + std::to_string(t->threads().size()) + " threads; UCIR holds at most " +
                          std::to_string(fmt::ucir::kMaxUcirThreads));
  if (path.empty() || path == "-") return make_error("OUT", "UCIR is written to a file, not to standard output");
  query::ChunkReader reader(*t);
  Cursor c(t);
  if (auto s = c.seek(0); !s) return s.error();
  auto first = c.current_step();
  if (!first) return refuse(*t, "the trace has no steps");
  const uint64_t tid = first->tid, pid = first->pid;
  // UCIR's thread keyframes begin a thread after a step: a second thread
  // alive before the first step has no place.
  if (c.state().threads().size() > 1)
    return refuse(*t, std::to_string(c.state().threads().size()) +
                          " threads exist at EID 0; UCIR begins every thread but the first after a step");

  const std::string temp = exporting::temp_name_beside(path);
  auto created = fmt::UcirWriter::create(temp, arch.id, t->info().os.empty() ? "linux" : t->info().os);
  if (!created) return created.error();
  std::unique_ptr<fmt::UcirWriter> w = std::move(*created);
  struct TempRemover {
    const std::string& p;
    bool keep = false;
    ~TempRemover() {
      if (!keep) ::unlink(p.c_str());
    }
  } remover{temp};

  UcirConvertResult res;
  std::map<uint32_t, std::vector<std::optional<uint64_t>>> regs;  // by thread index
  EffectForwarder fwd;
  fwd.w = w.get(), fwd.arch = &arch, fwd.regs = &regs, fwd.unknowns = &res.unknowns_dropped;
  // UCIR thread n (1 = the first step's) is the n-th thread met, as a
  // step's thread or begun by a step; thread_of holds n by thread index.
  std::map<uint32_t, uint32_t> thread_of;
  auto number = [&](uint32_t tidx) {
    auto [it, added] = thread_of.emplace(tidx, uint32_t(thread_of.size() + 1));
    if (added) res.source_tids.push_back(tidx < t->threads().size() ? t->threads()[tidx].tid : 0);
    return it->second;
  };
  bool keyframe_written = false;
  const auto k_sys = reader.attr_key("syscall"), k_args = reader.attr_key("args"), k_ret = reader.attr_key("ret");
  const auto abi = syscall_regs(arch.id);
  std::vector<std::pair<uint32_t, fmt::AttrValue>> attrs;
  uint64_t next_pc = 0;
  bool continues = false;  // next_pc is where the frame being written goes on
  uint32_t current = 0;  // the UCIR thread of the frame being written
  const uint64_t last_eid = t->step_count() - 1;
  for (size_t ch = 0; ch < reader.chunk_count(); ++ch) {
    if (auto s = reader.load(ch); !s) return s.error();
    while (reader.next()) {
      const query::StepView& s = reader.step();
      if (s.kind != fmt::StepKind::Instruction && s.kind != fmt::StepKind::Syscall)
        return refuse(*t, "EID " + std::to_string(s.eid) + " is an event (" + std::string(fmt::step_kind_name(s.kind)) +
                              "); UCIR holds instructions only");
      if (s.pid != pid) return refuse(*t, "EID " + std::to_string(s.eid) + " is in another process; UCIR holds one");
      if (!keyframe_written) {
        if (s.tid != tid) return make_error(t->path(), "EID 0: the cursor and the index disagree on the first thread");
        number(s.tidx);
        if (auto st = write_keyframe(*w, c.state(), tid, pid, fwd.regs_of(s.tidx)); !st) return st.error();
        keyframe_written = true;
      }
      const uint32_t n = number(s.tidx);
      if (n != current) {
        // A frame names its thread; every switch starts one, with a jump
        // (the reader keeps one pc for the stream, not one per thread).
        w->set_thread(n);
        current = n;
        continues = false;
      }
      if (!continues || next_pc != s.pc) {
        w->begin_frame();
        w->jmp(s.pc, 0);
      }
      next_pc = s.pc + s.size;
      continues = true;
      fwd.start(s.tidx);
      auto& rf = fwd.regs_of(s.tidx);
      if (s.kind == fmt::StepKind::Instruction) {
        if (!reader.effects(fwd)) return reader.status().error();
        if (fwd.ended) w->exit();  // before OP_STEP: an OP_EXIT after it would belong to the next step
        w->step(uint8_t(std::min<uint32_t>(s.size, 255)));
      } else {
        // The syscall's facts: its attributes, else the ABI registers
        // before the step (the result is not known before it).
        uint64_t num = 0, ret = 0;
        std::vector<uint64_t> args;
        bool have_num = false;
        if (!reader.attrs(attrs)) return reader.status().error();
        for (const auto& [k, v] : attrs) {
          if (k_sys && k == *k_sys && std::holds_alternative<uint64_t>(v)) num = std::get<uint64_t>(v), have_num = true;
          if (k_args && k == *k_args && std::holds_alternative<std::vector<uint64_t>>(v)) args = std::get<std::vector<uint64_t>>(v);
          if (k_ret && k == *k_ret) {
            if (auto* u = std::get_if<uint64_t>(&v)) ret = *u;
            if (auto* i = std::get_if<int64_t>(&v)) ret = uint64_t(*i);
          }
        }
        if (!have_num && abi) {
          if (auto r = arch.find(abi->number); r && rf[*r]) num = *rf[*r];
          args.clear();
          for (const char* a : abi->args)
            if (auto r = arch.find(a)) args.push_back(rf[*r].value_or(0));
        }
        w->step(uint8_t(std::min<uint32_t>(s.size, 255)));
        w->begin_syscall(uint32_t(num), ret, args);
        if (!reader.effects(fwd)) return reader.status().error();
        if (fwd.ended) w->exit();
        w->end_syscall();
      }
      // The last step's exit ends every thread (the reader says so too);
      // elsewhere UCIR cannot say that one thread ended another.
      if (fwd.other_ended && !(fwd.ended && s.eid == last_eid))
        return refuse(*t, "EID " + std::to_string(s.eid) + " ends another thread than its own; UCIR cannot say that");
      for (const auto& nb : fwd.born) {
        // A thread already met whose registers another thread's step
        // writes (not a new thread's start): UCIR has no op for that.
        if (!nb.began && thread_of.count(nb.tidx))
          return refuse(*t, "EID " + std::to_string(s.eid) + " writes registers of another running thread; UCIR cannot say that");
        // The thread keyframe right after the step that began the thread:
        // its pc (0 when the trace gives none) and registers.
        const uint32_t m = number(nb.tidx);
        uint64_t start_pc = 0;
        for (const auto& [r, v] : nb.regs)
          if (r == arch.pc_index) start_pc = to_u64(arch, v.data(), v.size());
        w->begin_thread_keyframe(m);
        w->jmp(start_pc, 0);
        for (const auto& [r, v] : nb.regs)
          if (r != arch.pc_index) w->reg(r, v);
        w->end_keyframe();
        current = 0;  // the next step opens a frame of its thread
        continues = false;
      }
      ++res.steps;
    }
    if (auto s = reader.status(); !s) return s.error();
  }
  res.dropped_registers = w->dropped_registers();
  if (auto s = w->close(); !s)
    return make_error(path, "writing failed (" + s.error().to_string() + "); the partial file was removed");
  if (std::rename(temp.c_str(), path.c_str()) != 0)
    return make_error(path, "cannot rename " + temp + " into place: " + std::strerror(errno));
  remover.keep = true;
  return res;
}

}  // namespace ttd::cli
