#include "unicorn_tenet_tracer.h"

#include <doctest/doctest.h>
#include <unicorn/unicorn.h>

#include "formats/tenet/tenet_arch.h"

namespace ttd::test {

namespace {

struct PendingAccess {
  bool write;
  uint64_t addr;
  uint32_t size;
};

struct TracerState {
  const TracerSetup* setup = nullptr;
  const ArchDesc* arch = nullptr;
  std::vector<int> uc_ids;  // Unicorn ids of the Tenet register set (no ip)
  fmt::tenet::TenetWriter* writer = nullptr;
  TracerRun* run = nullptr;
  std::vector<PendingAccess> pending;  // accesses of the instruction running now
  uint64_t instruction = 0;
};

uint64_t read_reg(uc_engine* uc, int id) {
  uint64_t v = 0;
  uc_reg_read(uc, id, &v);
  return v;
}

std::vector<uint8_t> read_mem(uc_engine* uc, uint64_t addr, uint64_t size) {
  std::vector<uint8_t> out(size);
  REQUIRE(uc_mem_read(uc, addr, out.data(), size) == UC_ERR_OK);
  return out;
}

// The callback before each instruction: Tenet's record_diff.
void on_code(uc_engine* uc, uint64_t address, uint32_t, void* user) {
  auto& st = *static_cast<TracerState*>(user);
  EmulatorSnapshot snap;
  snap.pc = address;
  for (int id : st.uc_ids) snap.regs.push_back(read_reg(uc, id));
  for (const EmulatorRegion& r : st.setup->data) snap.memory.push_back(read_mem(uc, r.base, r.size));

  std::vector<fmt::tenet::WrittenAccess> accesses;
  for (const PendingAccess& p : st.pending) {
    fmt::tenet::WrittenAccess a;
    a.kind = p.write ? fmt::tenet::AccessKind::Write : fmt::tenet::AccessKind::Read;
    a.addr = p.addr;
    a.bytes = read_mem(uc, p.addr, p.size);
    if (st.setup->merge_read_write && !accesses.empty() && accesses.back().addr == a.addr &&
        accesses.back().bytes.size() == a.bytes.size() && accesses.back().kind != a.kind) {
      accesses.back().kind = fmt::tenet::AccessKind::ReadWrite;
      continue;
    }
    accesses.push_back(std::move(a));
  }
  st.pending.clear();
  st.writer->line(snap.regs, address, accesses, st.run->trace);
  st.run->at_step.push_back(std::move(snap));
  st.instruction = st.run->at_step.size() - 1;
}

void on_memory(uc_engine*, uc_mem_type type, uint64_t address, int size, int64_t, void* user) {
  auto& st = *static_cast<TracerState*>(user);
  bool write = type == UC_MEM_WRITE;
  st.pending.push_back({write, address, uint32_t(size)});
  st.run->touched.push_back({st.instruction, address, uint32_t(size)});
}

}  // namespace

TracerRun run_unicorn_tenet_tracer(const TracerSetup& setup) {
  const ArchDesc& arch = arch_desc(setup.arch);
  TracerRun run;
  TracerState st;
  st.setup = &setup;
  st.arch = &arch;
  st.run = &run;
  for (std::string_view name : fmt::tenet::tenet_register_set(setup.arch)) {
    auto idx = arch.find(name);
    REQUIRE(idx);
    if (*idx == arch.pc_index) continue;
    REQUIRE(arch.regs[*idx].unicorn_id >= 0);
    st.uc_ids.push_back(arch.regs[*idx].unicorn_id);
    run.register_names.emplace_back(name);
  }
  fmt::tenet::TenetWriter writer(run.register_names, std::string(arch.pc().name), setup.style);
  st.writer = &writer;

  uc_engine* uc = nullptr;
  REQUIRE(uc_open(uc_arch(arch.uc_arch), uc_mode(arch.uc_mode), &uc) == UC_ERR_OK);
  REQUIRE(uc_mem_map(uc, setup.code_base, 0x1000, UC_PROT_ALL) == UC_ERR_OK);
  REQUIRE(uc_mem_write(uc, setup.code_base, setup.code.data(), setup.code.size()) == UC_ERR_OK);
  for (const EmulatorRegion& r : setup.data) {
    REQUIRE(uc_mem_map(uc, r.base, r.size, UC_PROT_READ | UC_PROT_WRITE) == UC_ERR_OK);
    if (!r.init.empty()) REQUIRE(uc_mem_write(uc, r.base, r.init.data(), r.init.size()) == UC_ERR_OK);
  }
  for (const auto& [name, value] : setup.initial_regs) {
    auto idx = arch.find(name);
    REQUIRE(idx);
    uint64_t v = value;
    REQUIRE(uc_reg_write(uc, arch.regs[*idx].unicorn_id, &v) == UC_ERR_OK);
  }
  uc_hook code_hook, mem_hook;
  REQUIRE(uc_hook_add(uc, &code_hook, UC_HOOK_CODE, reinterpret_cast<void*>(on_code), &st, 1, 0) == UC_ERR_OK);
  REQUIRE(uc_hook_add(uc, &mem_hook, UC_HOOK_MEM_READ | UC_HOOK_MEM_WRITE, reinterpret_cast<void*>(on_memory),
                      &st, 1, 0) == UC_ERR_OK);
  uc_err err = uc_emu_start(uc, setup.code_base, setup.until, 0, 0);
  INFO(uc_strerror(err));
  REQUIRE(err == UC_ERR_OK);
  uc_close(uc);
  return run;
}

}  // namespace ttd::test
