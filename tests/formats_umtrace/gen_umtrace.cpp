// gen_umtrace DIR [MEGABYTES [THREADS]]: writes a large UMTracer trace
// (default 600 MB of exec.vtable) for throughput runs: two threads (or
// THREADS, 1 or 2; ttd convert's tests use one) running a loop of
// loads, adds, stores, push/pop and a conditional branch, with consistent
// register and memory values (a small interpreter keeps them), a system
// call with context dumps every 50,000 records and a context change now and
// then. Record sizes match what UMTracer writes for such instructions
// (40-80 bytes with their local context).
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "formats/umtrace/testing/umtrace_writer.h"
#include "formats/umtrace/testing/x86_register_catalog.h"

using namespace ttd::fmt::umtrace;

namespace {

const X86RegisterCatalog& cat() { return X86RegisterCatalog::instance(); }
uint16_t R(const char* n) { return *cat().find(n, true); }

struct Machine {
  std::map<std::string, uint64_t> regs;
  std::map<uint64_t, uint64_t> mem;
  uint64_t load(uint64_t a) {
    auto it = mem.find(a);
    return it != mem.end() ? it->second : a * 0x9e3779b97f4a7c15ull;
  }
};

// One instruction form: its slots (register or memory) in the three groups.
struct Slot {
  int group;            // 0 input, 1 output pre-value, 2 after
  const char* reg;      // nullptr: memory
  uint16_t mem_name = kRegMem0;
};
struct Template {
  uint64_t address;
  std::vector<uint8_t> code;
  const char* text;
  std::vector<Slot> slots;
  uint64_t id = 0;
};

uint64_t add_template(UmtraceWriter& w, Template& t) {
  InstructionSpec ins;
  ins.address = t.address;
  ins.code = t.code;
  ins.disasm = t.text;
  ins.module_id = 0;
  DecodedInstructionSpec& d = ins.decoded;
  uint16_t off = 0;
  for (int g = 0; g < 3; ++g) {
    if (g == 1) d.first_out_slot = uint8_t(d.slots.size());
    if (g == 2) d.first_after_slot = uint8_t(d.slots.size());
    for (const Slot& s : t.slots) {
      if (s.group != g) continue;
      LcSlotSpec l;
      l.offset = off;
      if (s.reg) {
        l.reg = R(s.reg);
        l.common = cat().entry(l.reg).family;
        l.value_size = cat().entry(l.reg).size;
      } else {
        l.reg = l.common = s.mem_name;
        l.value_size = 8;
        l.addr_width = 8;
        off += 8;
      }
      off = uint16_t(off + l.value_size);
      d.slots.push_back(l);
    }
  }
  d.lc_size = off;
  return t.id = w.add_instruction(ins);
}

// Local context bytes from (value) list in slot order; memory slots take (address, value).
struct LcBuilder {
  std::vector<uint8_t> b;
  void put(uint64_t v, size_t n) {
    uint8_t x[8];
    std::memcpy(x, &v, 8);
    b.insert(b.end(), x, x + n);
  }
  void u64(uint64_t v) { put(v, 8); }
  void u32(uint64_t v) { put(v, 4); }
};

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s DIR [MEGABYTES [THREADS]]\n", argv[0]);
    return 2;
  }
  const uint64_t target = (argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 600) << 20;
  const int nthreads = argc > 3 && std::strcmp(argv[3], "1") == 0 ? 1 : 2;
  WriterOptions opt;
  opt.xml = {{"App/ProcessID", "1234"}, {"App/ImagePath", "C:\\gen\\loop.exe"}, {"Xed/Version", "20150121"}};
  auto created = UmtraceWriter::create(argv[1], cat().context_map(), opt);
  if (!created) {
    std::fprintf(stderr, "%s\n", created.error().to_string().c_str());
    return 1;
  }
  UmtraceWriter& w = **created;
  w.add_module(ModuleSpec{0, -1, 0x140000000, 0x140000fff, "C:\\gen\\loop.exe", "\\Device\\gen\\loop.exe"});
  const uint64_t base = 0x140001000;
  std::vector<Template> loop = {
      {base + 0x00, {0x48, 0x8b, 0x14, 0xcf}, "mov rdx, qword ptr [rdi+rcx*8]", {{0, "RDI"}, {0, "RCX"}, {0, nullptr}, {2, "RDX"}}},
      {base + 0x04, {0x48, 0x01, 0xd0}, "add rax, rdx", {{0, "RAX"}, {0, "RDX"}, {2, "RAX"}, {2, "RFLAGS"}}},
      {base + 0x07, {0x48, 0x89, 0x84, 0xcf, 0, 1, 0, 0}, "mov qword ptr [rdi+rcx*8+0x100], rax",
       {{0, "RDI"}, {0, "RCX"}, {0, "RAX"}, {1, nullptr}, {2, nullptr}}},
      {base + 0x0f, {0x50}, "push rax", {{0, "RSP"}, {0, "RAX"}, {1, nullptr, R("STACKPUSH")}, {2, "RSP"}, {2, nullptr, R("STACKPUSH")}}},
      {base + 0x10, {0x5a}, "pop rdx", {{0, "RSP"}, {0, nullptr, R("STACKPOP")}, {1, "RDX"}, {2, "RSP"}, {2, "RDX"}}},
      {base + 0x11, {0x48, 0xff, 0xc9}, "dec rcx", {{0, "RCX"}, {2, "RCX"}, {2, "RFLAGS"}}},
      {base + 0x14, {0x75, 0xea}, "jnz 0x140001000", {{0, "RFLAGS"}, {2, "RIP"}}},
  };
  Template reset{base + 0x16, {0xb9, 0xe8, 0x03, 0, 0}, "mov ecx, 0x3e8", {{1, "ECX"}, {2, "ECX"}}};
  for (Template& t : loop) add_template(w, t);
  add_template(w, reset);

  uint32_t threads[2] = {w.add_thread(ThreadSpec{0x1a0, 0x7ffd0000}), 0};
  if (nthreads == 2) threads[1] = w.add_thread(ThreadSpec{0x1a4, 0x7ffd2000});
  Machine m[2];
  std::vector<uint8_t> dumpbuf(cat().dump_size());
  auto dump_of = [&](Machine& mm) {
    std::fill(dumpbuf.begin(), dumpbuf.end(), 0);
    for (const auto& [n, v] : mm.regs) std::memcpy(dumpbuf.data() + cat().dump_offset(R(n.c_str()), true), &v, 8);
    return ContextSpec{dumpbuf, {}};
  };
  for (int t = 0; t < nthreads; ++t) {
    m[t].regs = {{"RAX", 0}, {"RCX", 1000}, {"RDX", 0}, {"RDI", 0x10000000ull + 0x100000ull * t},
                 {"RSP", 0x7ff000ull + 0x100000ull * t}, {"RIP", base}, {"RFLAGS", 0x202}};
    if (!w.thread_begin(threads[t], kFlag64Bit, dump_of(m[t]))) return 1;
  }
  size_t pc[2] = {0, 0};
  uint64_t records = 0, syscall_every = 50000;
  LcBuilder lc;
  while (w.exec_bytes() < target) {
    for (int t = 0; t < nthreads; ++t) {
      Machine& M = m[t];
      auto& r = M.regs;
      for (int k = 0; k < 23; ++k) {  // a time slice
        lc.b.clear();
        Template* tp;
        if (pc[t] == loop.size()) {
          tp = &reset;
          lc.u32(r["RCX"]);
          r["RCX"] = 1000;
          lc.u32(1000);
          pc[t] = 0;
        } else {
          tp = &loop[pc[t]];
          switch (pc[t]) {
            case 0: {
              const uint64_t a = r["RDI"] + r["RCX"] * 8;
              lc.u64(r["RDI"]), lc.u64(r["RCX"]), lc.u64(a), lc.u64(M.load(a));
              r["RDX"] = M.load(a);
              lc.u64(r["RDX"]);
              break;
            }
            case 1:
              lc.u64(r["RAX"]), lc.u64(r["RDX"]);
              r["RAX"] += r["RDX"];
              r["RFLAGS"] = 0x202 | (r["RAX"] == 0 ? 0x40 : 0) | ((r["RAX"] >> 63) ? 0x80 : 0);
              lc.u64(r["RAX"]), lc.u64(r["RFLAGS"]);
              break;
            case 2: {
              const uint64_t a = r["RDI"] + r["RCX"] * 8 + 0x100;
              lc.u64(r["RDI"]), lc.u64(r["RCX"]), lc.u64(r["RAX"]), lc.u64(a), lc.u64(M.load(a));
              M.mem[a] = r["RAX"];
              lc.u64(a), lc.u64(r["RAX"]);
              break;
            }
            case 3: {
              const uint64_t a = r["RSP"] - 8;
              lc.u64(r["RSP"]), lc.u64(r["RAX"]), lc.u64(a), lc.u64(M.load(a));
              M.mem[a] = r["RAX"];
              r["RSP"] = a;
              lc.u64(r["RSP"]), lc.u64(a), lc.u64(r["RAX"]);
              break;
            }
            case 4: {
              const uint64_t a = r["RSP"];
              lc.u64(a), lc.u64(a), lc.u64(M.load(a)), lc.u64(r["RDX"]);
              r["RDX"] = M.load(a);
              r["RSP"] = a + 8;
              lc.u64(r["RSP"]), lc.u64(r["RDX"]);
              break;
            }
            case 5:
              lc.u64(r["RCX"]);
              r["RCX"] -= 1;
              r["RFLAGS"] = 0x202 | (r["RCX"] == 0 ? 0x40 : 0);
              lc.u64(r["RCX"]), lc.u64(r["RFLAGS"]);
              break;
            case 6:
              lc.u64(r["RFLAGS"]);
              lc.u64(r["RCX"] ? base : base + 0x16);
              break;
          }
          const bool taken_back = pc[t] == 6 && r["RCX"] != 0;
          pc[t] = taken_back ? 0 : pc[t] + 1;
        }
        r["RIP"] = loop[pc[t] % loop.size()].address;
        auto e = w.instruction(threads[t], kFlag64Bit, tp->id, lc.b);
        if (!e) {
          std::fprintf(stderr, "%s\n", e.error().to_string().c_str());
          return 1;
        }
        if (++records % syscall_every == 0) {
          SyscallSpec sc;
          sc.raw_id = 0x18;
          sc.uniform_id = 0x123;
          sc.convention = 2;
          sc.completed = true;
          sc.args = {r["RCX"], r["RDX"], 0, 0};
          const uint64_t id = w.add_syscall(sc);
          w.syscall(id).begin_eid = int64_t(w.record_count());
          if (!w.syscall_entry(threads[t], kFlag64Bit, id, dump_of(M))) return 1;
          r["RAX"] = 0;  // STATUS_SUCCESS
          w.syscall(id).end_eid = int64_t(w.record_count());
          if (!w.syscall_exit(threads[t], kFlag64Bit, int64_t(id), dump_of(M))) return 1;
        }
      }
    }
  }
  for (int t = 0; t < nthreads; ++t)
    if (!w.thread_end(threads[t], kFlag64Bit, 0)) return 1;
  if (!w.app_end(threads[nthreads - 1], kFlag64Bit, 0)) return 1;
  auto s = w.finish();
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }
  std::printf("%s: %llu records, exec.vtable %.1f MB\n", argv[1], (unsigned long long)w.record_count(),
              double(w.exec_bytes()) / 1e6);
  return 0;
}
