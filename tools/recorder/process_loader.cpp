#include "tools/recorder/process_loader.h"

#include <unistd.h>

#include <map>
#include <optional>

#include "tools/recorder/initial_stack.h"

namespace ttd::rec {

namespace {

constexpr uint64_t kStackSize = 8ull << 20;

// Segments may share a page (the end of text and the start of data); such
// a page gets the union of the protections, as the kernel's mappings do.
Status map_segments(GuestMemory& mem, const ElfImage& elf) {
  std::map<uint64_t, uint8_t> page_prot;
  for (const auto& s : elf.segments)
    for (uint64_t p = mem.page_down(s.vaddr); p < s.vaddr + s.mem_size; p += mem.page_size())
      page_prot[p] |= s.prot;
  // Map runs of consecutive pages with equal protection.
  auto it = page_prot.begin();
  while (it != page_prot.end()) {
    uint64_t start = it->first, end = start + mem.page_size();
    uint8_t prot = it->second;
    auto next = std::next(it);
    while (next != page_prot.end() && next->first == end && next->second == prot) {
      end += mem.page_size();
      ++next;
    }
    if (auto st = mem.map(start, end - start, prot, elf.path); !st) return st;
    it = next;
  }
  for (const auto& s : elf.segments) {
    if (!mem.write(s.vaddr, s.bytes)) return make_error(elf.path, "cannot copy a segment into memory");
  }
  return {};
}

// Reads the program's interpreter and places it as Linux does with
// randomization off: the highest free range below the mmap base.
Result<ElfImage> load_interpreter(const GuestMemory& mem, const GuestArch& arch, const ElfImage& prog,
                                  const std::string& sysroot) {
  std::string path = sysroot.empty() ? prog.interp : sysroot + prog.interp;
  auto interp = load_elf(path, 0);
  if (!interp) {
    return make_error(prog.path, "cannot load its program interpreter (dynamic loader) " + path + ": " +
                                     interp.error().message);
  }
  if (interp->arch != prog.arch)
    return make_error(path, "the program interpreter is for another architecture than " + prog.path);
  if (!interp->position_independent || !interp->interp.empty())
    return make_error(path, "not a usable program interpreter (it must be a shared object without one of its own)");
  uint64_t lo = ~0ull;
  for (const auto& s : interp->segments) lo = std::min(lo, mem.page_down(s.vaddr));
  uint64_t span = mem.page_up(interp->end) - lo;
  // Linux aligns it to its largest segment alignment (64 KiB for AArch64
  // objects), taking the extra room from the top.
  uint64_t align = std::max<uint64_t>(mem.page_size(), std::min<uint64_t>(interp->max_align, 1ull << 21));
  auto base = mem.find_free(span + align - mem.page_size(), 0x10000, arch.mmap_top());
  if (!base) return make_error(path, "no room for the program interpreter");
  *base = (*base + align - 1) & ~(align - 1);
  rebase(*interp, *base - lo);
  return interp;
}

}  // namespace

Result<LoadedProcess> load_process(uc_engine* uc, GuestMemory& mem, const GuestArch& arch,
                                   const ElfImage& elf, const std::vector<std::string>& argv,
                                   const std::vector<std::string>& env, const std::string& execfn,
                                   const std::string& sysroot) {
  // The stack is mapped first, before any code: Unicorn 2.0.1 sends every
  // guest store through notdirty_write (docs/performance.md, "Recorder
  // speed, session 13"), which is cheaper when the store's page shares no
  // 4 MiB window of Unicorn's RAM offsets with translated code (no PageDesc
  // there). RAM offsets follow the order of uc_mem_map calls, so the stack
  // mapped first fills offsets [0, 8 MiB) on its own. Addresses, and so
  // the trace, do not depend on this order.
  const uint64_t top = arch.stack_top();
  if (auto st = mem.map(top - kStackSize, kStackSize, kProtRead | kProtWrite, "[stack]"); !st) return st.error();
  if (auto st = map_segments(mem, elf); !st) return st.error();
  std::optional<ElfImage> interp;
  if (!elf.interp.empty()) {
    auto loaded = load_interpreter(mem, arch, elf, sysroot);
    if (!loaded) return loaded.error();
    interp = std::move(*loaded);
    if (auto st = map_segments(mem, *interp); !st) return st.error();
  }
  uint64_t start = interp ? interp->entry : elf.entry;

  AuxInfo aux;
  aux.phdr = elf.phdr_addr;
  aux.phent = elf.phentsize;
  aux.phnum = elf.phnum;
  aux.entry = elf.entry;
  aux.base = interp ? interp->load_bias : 0;
  aux.pagesz = mem.page_size();
  aux.hwcap = arch.hwcap();
  aux.uid = getuid();
  aux.euid = geteuid();
  aux.gid = getgid();
  aux.egid = getegid();
  aux.platform = std::string(arch.platform());
  aux.execfn = execfn;
  // Fixed "random" bytes: the stack protector canary and pointer guard are
  // derived from them, and a trace should not change between recordings.
  for (int i = 0; i < 16; ++i) aux.random[i] = uint8_t(0x5a ^ (i * 29));

  InitialStack stack = build_initial_stack(top, argv, env, aux);
  if (stack.bytes.size() > kStackSize / 2) return make_error("record", "arguments and environment are too large");
  if (!mem.write(stack.sp, stack.bytes)) return make_error("record", "cannot write the initial stack");

  const ArchDesc& desc = arch_desc(arch.id());
  if (uc_reg_write(uc, desc.sp().unicorn_id, &stack.sp) != UC_ERR_OK ||
      uc_reg_write(uc, desc.pc().unicorn_id, &start) != UC_ERR_OK)
    return make_error("emulator", "cannot set the initial pc and sp");

  LoadedProcess p;
  p.entry = start;
  p.program_entry = elf.entry;
  if (interp) p.interp = interp->path;
  p.sp = stack.sp;
  p.brk_base = mem.page_up(elf.end);
  p.proc_self = {stack.arg_start, stack.arg_end, stack.env_start, stack.env_end, std::move(stack.auxv)};
  return p;
}

}  // namespace ttd::rec
