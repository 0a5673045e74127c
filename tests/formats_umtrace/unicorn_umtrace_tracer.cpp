#include "unicorn_umtrace_tracer.h"

#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include <cstring>
#include <memory>

#include "formats/umtrace/testing/umtrace_writer.h"
#include "formats/umtrace/testing/x86_local_context.h"
#include "formats/umtrace/testing/x86_register_catalog.h"
#include "temp_dir.h"

namespace ttd::test {

namespace {

using namespace fmt::umtrace;

struct Tracer {
  const UmtraceTracerSetup& s;
  const ArchDesc& arch;
  const X86RegisterCatalog& cat = X86RegisterCatalog::instance();
  const bool m64;
  uc_engine* uc = nullptr;
  std::unique_ptr<UmtraceWriter> w;
  std::unique_ptr<X86LocalContextBuilder> builder;
  struct Thread {
    uint32_t row = 0;
    uint64_t tid = 0;
    uc_context* ctx = nullptr;
    bool begun = false, done = false, pending_gap = false;
    uint64_t last_pc = ~0ull;
    std::vector<std::vector<uint8_t>> regs;  // cache while not live
  };
  std::vector<Thread> threads;
  int live = -1;
  std::vector<ObservedAccess> accesses;
  bool syscall_hit = false;
  UmtraceTracerRun run;

  Tracer(const UmtraceTracerSetup& setup) : s(setup), arch(arch_desc(setup.arch)), m64(setup.arch == ArchId::X86_64) {}
  ~Tracer() {
    for (Thread& t : threads)
      if (t.ctx) uc_context_free(t.ctx);
    if (uc) uc_close(uc);
  }

  std::vector<uint8_t> mem(uint64_t addr, uint64_t size) {
    std::vector<uint8_t> b(size);
    REQUIRE(uc_mem_read(uc, addr, b.data(), size) == UC_ERR_OK);
    return b;
  }
  uint64_t reg(const char* gdb_name) {
    uint8_t buf[64] = {};
    uc_reg_read(uc, arch.regs[*arch.find(gdb_name)].unicorn_id, buf);
    uint64_t v;
    std::memcpy(&v, buf, 8);
    return m64 ? v : (v & 0xffffffffu);
  }
  void set_reg(const std::string& gdb_name, uint64_t v) {
    auto i = arch.find(gdb_name);
    REQUIRE(i);
    uc_reg_write(uc, arch.regs[*i].unicorn_id, &v);
  }
  std::vector<uint8_t> dump() {
    std::vector<uint8_t> d(cat.dump_size(), 0);
    for (const auto& r : cat.dump_registers(m64)) {
      if (r.gdb_name.empty()) continue;
      const int uid = arch.regs[*arch.find(r.gdb_name)].unicorn_id;
      if (uid < 0) continue;
      uint8_t buf[64] = {};
      uc_reg_read(uc, uid, buf);
      std::memcpy(d.data() + r.offset, buf, r.size);
    }
    return d;
  }
  std::vector<std::vector<uint8_t>> capture() {
    std::vector<std::vector<uint8_t>> out(arch.regs.size());
    for (size_t i = 0; i < arch.regs.size(); ++i) {
      if (arch.regs[i].unicorn_id < 0) continue;
      uint8_t buf[64] = {};
      uc_reg_read(uc, arch.regs[i].unicorn_id, buf);
      out[i].assign(buf, buf + arch.regs[i].bytes());
    }
    return out;
  }
  void switch_to(int i) {
    if (live == i) return;
    if (live >= 0) {
      threads[live].regs = capture();
      uc_context_save(uc, threads[live].ctx);
    }
    uc_context_restore(uc, threads[i].ctx);
    live = i;
  }
  // The emulator now, for the record about to be written.
  void snapshot(uint64_t eid) {
    REQUIRE(run.at_eid.size() == eid);
    EmulatorState st;
    for (size_t i = 0; i < threads.size(); ++i)
      if (threads[i].begun) st.regs[threads[i].tid] = int(i) == live ? capture() : threads[i].regs;
    for (const GuestRegion& r : s.regions) st.memory.push_back(mem(r.base, r.size));
    st.code = mem(s.code_base, s.code.size());
    run.at_eid.push_back(std::move(st));
  }
  uint8_t flags_for(Thread& t) {
    uint8_t f = m64 ? kFlag64Bit : 0;
    if (t.pending_gap) f |= kFlagInstrumentationWasOff;
    t.pending_gap = false;
    return f;
  }
  void wrote(Result<uint64_t> eid, uint8_t type) {
    REQUIRE_MESSAGE(eid, why(eid));
    run.record_types.push_back(type);
  }

  void setup(const std::string& dir) {
    REQUIRE(uc_open(UC_ARCH_X86, m64 ? UC_MODE_64 : UC_MODE_32, &uc) == UC_ERR_OK);
    const uint64_t code_size = (s.code.size() + 0xfff) & ~0xfffull;
    REQUIRE(uc_mem_map(uc, s.code_base, code_size, UC_PROT_ALL) == UC_ERR_OK);
    REQUIRE(uc_mem_write(uc, s.code_base, s.code.data(), s.code.size()) == UC_ERR_OK);
    for (const GuestRegion& r : s.regions) {
      REQUIRE(uc_mem_map(uc, r.base, r.size, UC_PROT_READ | UC_PROT_WRITE) == UC_ERR_OK);
      if (!r.init.empty()) REQUIRE(uc_mem_write(uc, r.base, r.init.data(), r.init.size()) == UC_ERR_OK);
    }
    uc_hook h;
    uc_hook_add(uc, &h, UC_HOOK_MEM_READ, (void*)+[](uc_engine*, uc_mem_type, uint64_t a, int size, int64_t, void* u) {
      auto& t = *static_cast<Tracer*>(u);
      t.accesses.push_back(ObservedAccess{false, a, t.mem(a, uint64_t(size)), {}});
    }, this, 1, 0);
    uc_hook_add(uc, &h, UC_HOOK_MEM_WRITE, (void*)+[](uc_engine*, uc_mem_type, uint64_t a, int size, int64_t, void* u) {
      auto& t = *static_cast<Tracer*>(u);
      t.accesses.push_back(ObservedAccess{true, a, t.mem(a, uint64_t(size)), {}});
    }, this, 1, 0);
    if (m64)
      uc_hook_add(uc, &h, UC_HOOK_INSN, (void*)+[](uc_engine*, void* u) { static_cast<Tracer*>(u)->syscall_hit = true; },
                  this, 1, 0, UC_X86_INS_SYSCALL);
    else
      uc_hook_add(uc, &h, UC_HOOK_INTR, (void*)+[](uc_engine*, uint32_t no, void* u) {
        if (no == 0x2e) static_cast<Tracer*>(u)->syscall_hit = true;
      }, this, 1, 0);

    auto created = UmtraceWriter::create(dir, cat.context_map(), s.options);
    REQUIRE_MESSAGE(created, why(created));
    w = std::move(*created);
    auto b = X86LocalContextBuilder::create(m64);
    REQUIRE(b);
    builder = std::move(*b);
    w->add_module(ModuleSpec{0, -1, s.code_base, s.code_base + code_size - 1, "C:\\ttd\\guest.exe",
                             "\\Device\\HarddiskVolume1\\ttd\\guest.exe"});

    // Each thread starts from zeroed general registers plus its own values.
    for (const GuestThreadSetup& g : s.threads) {
      Thread th;
      th.row = w->add_thread(ThreadSpec{g.win_tid, g.tib});
      th.tid = g.win_tid;
      REQUIRE(uc_context_alloc(uc, &th.ctx) == UC_ERR_OK);
      for (const RegisterDesc& r : arch.regs)
        if (r.group == "general" && r.unicorn_id >= 0 && r.name != "cs" && r.name != "ss" && r.name != "ds" &&
            r.name != "es" && r.name != "fs" && r.name != "gs" && r.name != "eflags")
          set_reg(r.name, 0);
      set_reg("eflags", 0x202);
      for (const auto& [name, v] : g.regs) set_reg(name, v);
      uc_context_save(uc, th.ctx);
      threads.push_back(std::move(th));
    }
  }

  void begin_thread(size_t i) {
    switch_to(int(i));
    Thread& t = threads[i];
    t.begun = true;
    const GuestThreadSetup& g = s.threads[i];
    ContextSpec ctx{dump(), {ContextMemSpec{g.tib, mem(g.tib, 64)}}};
    snapshot(w->record_count());
    wrote(w->thread_begin(t.row, flags_for(t), ctx), 1);
  }

  // An asynchronous procedure call changes a register and some memory.
  void context_change() {
    Thread& t = threads[live];
    const char* r = m64 ? "r15" : "ebp";
    set_reg(r, reg(r) ^ 0x5a5a5a5a);
    const uint64_t scratch = s.regions[0].base + 0xf00;
    std::vector<uint8_t> bytes(8);
    for (size_t i = 0; i < bytes.size(); ++i) bytes[i] = uint8_t(0xa0 + run.context_changes + i);
    REQUIRE(uc_mem_write(uc, scratch, bytes.data(), bytes.size()) == UC_ERR_OK);
    ContextSpec ctx{dump(), {ContextMemSpec{scratch, bytes}}};
    snapshot(w->record_count());
    wrote(w->context_change(t.row, flags_for(t), ExecType::ContextApc, ctx), 8);
    ++run.context_changes;
  }

  // The kernel side of a system call: entry record, effects, exit record.
  void kernel() {
    Thread& t = threads[live];
    const uint64_t number = reg(m64 ? "rax" : "eax") & 0xffff;
    SyscallSpec sc;
    sc.raw_id = uint16_t(number);
    sc.uniform_id = uint16_t(number + 0x100);
    sc.convention = m64 ? 2 : 3;
    sc.before_sp = reg(m64 ? "rsp" : "esp");
    if (m64) {
      sc.args = {reg("r10"), reg("rdx"), reg("r8"), reg("r9")};
    } else {
      const uint64_t args = reg("edx");
      std::vector<uint8_t> a = mem(args, 8);
      sc.args = {load_le32(a.data()), load_le32(a.data() + 4)};
    }
    const uint64_t id = w->add_syscall(sc);
    w->syscall(id).begin_eid = int64_t(w->record_count());
    snapshot(w->record_count());
    wrote(w->syscall_entry(t.row, flags_for(t), id, ContextSpec{dump(), {}}), 4);

    const uint64_t buffer = reg(m64 ? "rdx" : "ecx");
    std::vector<uint8_t> out(m64 ? 16 : 8);
    for (size_t i = 0; i < out.size(); ++i) out[i] = uint8_t(number * 7 + i + run.syscalls);
    REQUIRE(uc_mem_write(uc, buffer, out.data(), out.size()) == UC_ERR_OK);
    const uint64_t result = out.size() + run.syscalls;
    if (m64) {
      // As the hardware does on syscall: rcx = return address, r11 = rflags.
      set_reg("rcx", reg("rip"));
      set_reg("r11", reg("eflags"));
      set_reg("rax", result);
    } else {
      set_reg("eax", result);
    }
    w->syscall(id).end_eid = int64_t(w->record_count());
    w->syscall(id).completed = true;
    w->syscall(id).result = result;
    snapshot(w->record_count());
    wrote(w->syscall_exit(t.row, flags_for(t), int64_t(id), ContextSpec{dump(), {ContextMemSpec{buffer, out}}}), 5);
    ++run.syscalls;
  }

  void instruction(bool recorded) {
    Thread& t = threads[live];
    const uint64_t pc = reg(m64 ? "rip" : "eip");
    const uint64_t eid = w->record_count();
    if (recorded) snapshot(eid);
    std::vector<uint8_t> before = dump();
    const uint64_t code_end = s.code_base + s.code.size();
    REQUIRE(pc >= s.code_base);
    REQUIRE(pc < code_end);
    std::vector<uint8_t> code = mem(pc, std::min<uint64_t>(15, code_end - pc));
    accesses.clear();
    syscall_hit = false;
    const uc_err err = uc_emu_start(uc, pc, m64 ? 0xfffffffffffff000ull : 0xfffff000ull, 0, 1);
    REQUIRE_MESSAGE(err == UC_ERR_OK, "emulation failed at " << std::hex << pc << ": " << uc_strerror(err));
    ++run.instructions;
    std::vector<uint8_t> after = dump();
    if (!recorded) {
      t.last_pc = ~0ull;
      return;
    }
    for (ObservedAccess& a : accesses)
      if (a.write) a.after = mem(a.addr, a.before.size());
    ExecutedX86 e;
    e.address = pc;
    e.code = code;
    e.dump_before = before;
    e.dump_after = after;
    e.accesses = accesses;
    e.module_id = 0;
    auto built = builder->build(e);
    REQUIRE_MESSAGE(built, why(built));
    const uint64_t ins = w->add_instruction(built->spec);
    uint8_t flags = uint8_t(built->exec_flags | flags_for(t));
    if ((built->spec.decoded.flags & 3) && t.last_pc != pc) flags |= kFlagRepFirst;
    t.last_pc = pc;
    wrote(w->instruction(t.row, flags, ins, built->lc), 0);
    ++run.recorded_instructions;
  }

  void trace() {
    size_t next_change = 0, cur = 0;
    uint32_t slice = 0;
    bool was_in_gap = false;
    uint64_t global = 0;
    for (;;) {
      for (size_t i = 0; i < threads.size(); ++i)
        if (!threads[i].begun && s.threads[i].start_at <= global) {
          begin_thread(i);
          threads[i].pending_gap = was_in_gap;
        }
      bool any = false;
      for (size_t k = 0; k < threads.size() && !any; ++k) {
        const size_t i = (cur + k) % threads.size();
        if (threads[i].begun && !threads[i].done) cur = i, any = true;
      }
      if (!any) break;
      REQUIRE(global < s.max_instructions);
      switch_to(int(cur));
      Thread& t = threads[cur];
      if (reg(m64 ? "rip" : "eip") == s.exit_address) {
        snapshot(w->record_count());
        wrote(w->thread_end(t.row, flags_for(t), int32_t(reg(m64 ? "rax" : "eax"))), 2);
        t.done = true;
        cur = (cur + 1) % threads.size();
        slice = 0;
        continue;
      }
      bool in_gap = false;
      for (const auto& [start, len] : s.gaps) in_gap |= global >= start && global < start + len;
      if (was_in_gap && !in_gap) {
        // Instrumentation is back: every thread's next record says so.
        for (Thread& th : threads) th.pending_gap = th.begun;
        if (run.first_gap_eid == ~0ull) run.first_gap_eid = w->record_count();
      }
      was_in_gap = in_gap;
      if (!in_gap && next_change < s.context_changes.size() && s.context_changes[next_change] <= global) {
        ++next_change;
        context_change();
      }
      instruction(!in_gap);
      ++global;
      if (syscall_hit) kernel();
      if (++slice >= s.quantum) {
        slice = 0;
        cur = (cur + 1) % threads.size();
      }
    }
    Thread& last = threads[live];
    snapshot(w->record_count());
    wrote(w->app_end(last.row, flags_for(last), 0), 3);
    auto fin = w->finish();
    REQUIRE_MESSAGE(fin, why(fin));
  }
};

}  // namespace

UmtraceTracerRun run_umtrace_tracer(const UmtraceTracerSetup& setup, const std::string& dir) {
  Tracer t(setup);
  t.setup(dir);
  t.trace();
  return std::move(t.run);
}

}  // namespace ttd::test
