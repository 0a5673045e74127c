// Finds the registers each instruction changed without reading every
// register every step: a per-pc cache of the registers the instruction may
// write (Capstone's cs_regs_access, widened to the architecture table's
// registers, plus the implicit writes GuestArch knows Capstone misses), and
// a shadow copy of every register to compare against. The first execution
// of each pc compares all registers and adds whatever changed to that pc's
// set, so a register Capstone forgot is caught the first time it changes.
#pragma once
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <set>
#include <span>
#include <unordered_map>
#include <vector>

#include <capstone/capstone.h>
#include <unicorn/unicorn.h>

#include "state/arch.h"
#include "state/error.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/memory_operand.h"
#include "tools/recorder/missing_instructions.h"
#include "tools/recorder/host_fp_eval.h"
#include "tools/recorder/x87_image_fixup.h"

namespace ttd::rec {

// A register the emulator can tell us about (has a Unicorn id, is not the pc).
struct TrackedReg {
  int uc_id = 0;
  uint16_t index = 0;   // into ArchDesc::regs
  uint16_t bytes = 0;
  uint32_t offset = 0;  // into the shadow
  // Unicorn stores all `bytes` bytes when it reads this register (found
  // at init()), so a row it reads into needs no zeroing first.
  bool read_fills = false;
};

// The registers an instruction may write (slots into RegisterTracker::regs(),
// in the order they were found) with their Unicorn ids, for one
// uc_reg_read_batch per step. Most instructions write one to three
// registers: up to kInline live inside the InsnInfo, so a step reads one
// cache line for its whole entry (a heap vector each for slots and ids
// was two more cache misses a step on python3's and sqlite3's large
// code); longer sets (cpuid, xrstor, syscall ...) move to the heap.
class SlotSet {
 public:
  static constexpr size_t kInline = 6;
  size_t size() const { return n_; }
  bool empty() const { return n_ == 0; }
  const uint16_t* begin() const { return heap_ ? heap_->slots.data() : slots_; }
  const uint16_t* end() const { return begin() + n_; }
  uint16_t operator[](size_t i) const { return begin()[i]; }
  const int* uc_ids() const { return heap_ ? heap_->ids.data() : ids_; }
  bool contains(uint16_t slot) const {
    for (uint16_t s : *this)
      if (s == slot) return true;
    return false;
  }
  void push_back(uint16_t slot, int uc_id) {
    if (!heap_ && n_ < kInline) {
      slots_[n_] = slot;
      ids_[n_] = uc_id;
    } else {
      if (!heap_) heap_ = std::make_unique<Heap>(Heap{{slots_, slots_ + n_}, {ids_, ids_ + n_}});
      heap_->slots.push_back(slot);
      heap_->ids.push_back(uc_id);
    }
    ++n_;
  }

 private:
  struct Heap {
    std::vector<uint16_t> slots;
    std::vector<int> ids;
  };
  uint16_t n_ = 0;
  uint16_t slots_[kInline] = {};
  int ids_[kInline] = {};
  std::unique_ptr<Heap> heap_;
};

// One decoded instruction: 64 bytes, one cache line (see SlotSet).
struct alignas(64) InsnInfo {
  uint64_t pc = 0;
  bool learned = false;         // first execution (full compare) done
  bool compare_all = false;     // Capstone could not decode it: compare everything
  // Bit fields: the entry has to stay one cache line.
  bool x87_env_store : 1 = false;  // fnsave / fnstenv: image corrected (x87_image_fixup.h)
  uint8_t tsc : 2 = 0;             // 1 rdtsc, 2 rdtscp: the result is made virtual (recording_session.cpp)
  uint8_t own_bits : 2 = 0;        // an OwnRun: not left to Unicorn (missing_instructions.h)
  OwnRun own() const { return OwnRun(own_bits); }
  HostFpOp host_fp;                // x86-64 SSE or x87 arithmetic evaluated on the host (sse_host_eval.h)
  SlotSet slots;
};
static_assert(sizeof(InsnInfo) == 64, "InsnInfo is meant to fill one cache line");

class RegisterTracker {
 public:
  // Called with (register index, value bytes little-endian) for each change.
  using Emit = std::function<void(uint16_t, std::span<const uint8_t>)>;

  RegisterTracker() = default;
  ~RegisterTracker();
  RegisterTracker(const RegisterTracker&) = delete;
  RegisterTracker& operator=(const RegisterTracker&) = delete;

  Status init(uc_engine* uc, const ArchDesc& arch, const GuestArch& guest);

  // Reads every tracked register into the shadow (after process setup).
  void load_all();
  const std::vector<TrackedReg>& regs() const { return regs_; }
  std::span<const uint8_t> shadow(size_t slot) const {
    return {shadow_.data() + regs_[slot].offset, regs_[slot].bytes};
  }

  // The whole shadow, to park a thread (thread_contexts.h), and back.
  std::vector<uint8_t> snapshot() const { return shadow_; }
  void restore(std::span<const uint8_t> shadow) { shadow_.assign(shadow.begin(), shadow.end()); }
  std::span<const uint8_t> slot_bytes(std::span<const uint8_t> shadow, size_t slot) const {
    return shadow.subspan(regs_[slot].offset, regs_[slot].bytes);
  }

  // The cached entry for the instruction at pc (decoded on first sight).
  InsnInfo& lookup(uint64_t pc) {
    InsnInfo*& f = front_[(pc >> 1) & (kFrontSize - 1)];
    if (f && f->pc == pc) return *f;
    return lookup_slow(pc, f);
  }

  // After the instruction ran: emits its registers that differ from the
  // shadow and updates the shadow. Learns on the first execution.
  template <class F>
  void diff(InsnInfo& info, F&& emit) {
    if (!info.learned || info.compare_all) return learn(info, emit);
    const size_t n = info.slots.size();
    // Nothing to read (jumps, compares into memory, stores): no call into
    // Unicorn at all (~20 instructions a step on a fifth of the steps).
    if (n == 0) return;
    if (n > kMaxBatch) {
      for (uint16_t s : info.slots) compare_slot(s, emit);
      return;
    }
    // One call into Unicorn for all of them (each uc_reg_read is two calls
    // and a dispatch of its own).
    const uint16_t* slots = info.slots.begin();  // inline or heap: asked once
    for (size_t i = 0; i < n; ++i)
      if (!regs_[slots[i]].read_fills) clear_row(batch_[i].bytes, slots[i]);
    read_batch_(uc_, const_cast<int*>(info.slots.uc_ids()), batch_ptrs_, int(n));
    for (size_t i = 0; i < n; ++i) compare_value(slots[i], batch_[i].bytes, emit);
  }
  // Compares every register; returns how many changed registers were not
  // in `info`'s set (0 when the fast path would have been exact).
  uint64_t diff_all(InsnInfo* info, const Emit& emit);

  // Writes the shadow's values of `info`'s registers back into the
  // emulator: the instruction Unicorn just ran did not happen (it raised a
  // SIMD exception the program unmasked, which traps before any write).
  void rewind(const InsnInfo& info);

  // The memory operand of the instruction at pc, decoded once: where a
  // fork child that is not recorded (no memory hooks) finds the operand of
  // a floating-point instruction it evaluates on the host.
  const MemoryOperand& memory_operand(uint64_t pc);

  // Forgets every cached decode (code may have changed: munmap, mprotect).
  void invalidate_cache();
  // Forgets the cached decodes of pcs in [begin, end) (that range was
  // unmapped, replaced or re-protected). Cheap when no decoded
  // instruction lies there (data mappings).
  void invalidate(uint64_t begin, uint64_t end);

 private:
  // Direct-mapped in front of cache_: a large interpreter's working set
  // (python3, sqlite3) thrashed 16 Ki entries, and the hash map behind
  // them cost more than any other part of the hooks. An entry is only the
  // pointer (the pc is in the InsnInfo, which a hit reads anyway): 512 Ki
  // entries in 4 MiB, pcs alias 1 MiB apart (python3's interpreter alone
  // is 3 MiB of code).
  static constexpr size_t kFrontSize = 1 << 19;
  static constexpr unsigned kPageShift = 12;

  // Every read of a register lands in a row of this many bytes.
  static constexpr size_t kRowBytes = 64;
  // Zeroes `row` before Unicorn stores slot s there: Unicorn may store
  // fewer bytes than the table's width, and compare_value reads at least 8.
  // Two fixed sizes, so the compiler stores inline instead of calling
  // memset once per register read (2.5 % of a recording's instructions).
  void clear_row(uint8_t* row, uint16_t s) const {
    if (regs_[s].bytes <= 8) std::memset(row, 0, 8);
    else std::memset(row, 0, kRowBytes);
  }
  template <class F>
  bool compare_slot(uint16_t s, F& emit) {
    // Read into a full-size buffer: Unicorn may store more bytes than the
    // table's width (eflags is read as 64 bits).
    alignas(16) uint8_t buf[kRowBytes];
    clear_row(buf, s);
    uc_reg_read(uc_, regs_[s].uc_id, buf);
    return compare_value(s, buf, emit);
  }
  // `now`: what Unicorn stored for slot s (64 bytes of room).
  // Inlined, with the emit callback, into diff()'s loop (see TraceEmitter::reg).
  template <class F>
  [[gnu::always_inline]] bool compare_value(uint16_t s, const uint8_t* now_bytes, F& emit) {
    const TrackedReg& r = regs_[s];
    uint8_t* sh = shadow_.data() + r.offset;
    if (r.bytes <= 8) {
      // The common case, kept to two 8-byte loads and one compare (the
      // shadow has 8 bytes of slack at its end, see init()). Fixed-size
      // copies: a copy of r.bytes bytes was a call into libc per register.
      const uint64_t mask = r.bytes == 8 ? ~0ull : ((1ull << (8 * r.bytes)) - 1);
      uint64_t now = 0, before = 0;
      std::memcpy(&now, now_bytes, 8);
      std::memcpy(&before, sh, 8);
      now &= mask;
      if (now == (before & mask)) return false;
      if (r.bytes == 8) std::memcpy(sh, &now, 8);
      else store_low(sh, now, r.bytes);
    } else {
      if (std::memcmp(now_bytes, sh, r.bytes) == 0) return false;
      std::memcpy(sh, now_bytes, r.bytes);
    }
    emit(r.index, std::span<const uint8_t>(sh, r.bytes));
    return true;
  }
  static void store_low(uint8_t* p, uint64_t v, uint16_t n) {
    for (uint16_t i = 0; i < n; ++i) p[i] = uint8_t(v >> (8 * i));
  }
  void add_slot(InsnInfo& info, uint16_t s) { info.slots.push_back(s, regs_[s].uc_id); }
  // Reads every tracked register with one uc_reg_read_batch into all_rows_
  // (diff_all: a pc's first execution and every syscall; one uc_reg_read
  // per register was ~110 instructions each, 60 registers a call).
  void read_all();
  template <class F>
  void learn(InsnInfo& info, F& emit) {
    diff_all(&info, Emit(std::ref(emit)));
    info.learned = true;
  }
  InsnInfo& lookup_slow(uint64_t pc, InsnInfo*& f);
  // Capstone's decode of the instruction at pc (cs_free it), or nullptr.
  cs_insn* disassemble(uint64_t pc) const;
  void decode(InsnInfo& info);

  uc_engine* uc_ = nullptr;
  const ArchDesc* arch_ = nullptr;
  const GuestArch* guest_ = nullptr;
  csh cs_ = 0;
  std::vector<TrackedReg> regs_;
  std::vector<uint8_t> shadow_;
  std::unordered_map<std::string, uint16_t> slot_by_name_;
  std::unordered_map<uint64_t, std::unique_ptr<InsnInfo>> cache_;
  std::set<uint64_t> code_pages_;  // pages (pc >> kPageShift) holding an entry of cache_
  std::unordered_map<uint64_t, MemoryOperand> mem_operands_;  // memory_operand()
  std::vector<InsnInfo*> front_ = std::vector<InsnInfo*>(kFrontSize, nullptr);
  // diff()'s batch: where uc_reg_read_batch stores each register.
  static constexpr size_t kMaxBatch = 32;
  struct alignas(16) BatchRow {
    uint8_t bytes[kRowBytes];
  };
  BatchRow batch_[kMaxBatch];
  void* batch_ptrs_[kMaxBatch];
  // read_all()'s rows, one per tracked register (init()).
  std::vector<BatchRow> all_rows_;
  std::vector<void*> all_ptrs_;
  std::vector<int> all_ids_;
  // Unicorn's own uc_reg_read_batch (init()): ttd's forwarding definition
  // of it (state/unicorn_library.cpp) cost ~40 instructions a call, and
  // diff() calls it once per step.
  using ReadBatch = uc_err (*)(uc_engine*, int*, void**, int);
  ReadBatch read_batch_ = &uc_reg_read_batch;
};

}  // namespace ttd::rec
