#include "state/machine_state.h"

#include <xxhash.h>

#include <algorithm>
#include <vector>

namespace ttd {

namespace {
// Inclusive last byte of [start, start+size), clamped to the top of the
// address space. Working with "last" instead of "end" keeps a range that
// ends exactly at 2^64 from wrapping to 0. size must be > 0.
uint64_t last_byte(uint64_t start, uint64_t size) {
  return size - 1 > ~0ull - start ? ~0ull : start + (size - 1);
}
// Size of [lo, hi]; the whole 2^64 space does not fit and loses its last byte.
uint64_t span_size(uint64_t lo, uint64_t hi) {
  uint64_t n = hi - lo + 1;
  return n == 0 ? ~0ull : n;
}
}  // namespace

void MemoryRegions::map(MemoryRegion r) {
  if (r.size == 0) return;
  r.size = span_size(r.start, last_byte(r.start, r.size));  // clamp at the top
  unmap(r.start, r.size);
  regions_[r.start] = std::move(r);
}

void MemoryRegions::unmap(uint64_t start, uint64_t size) {
  if (size == 0) return;
  uint64_t last = last_byte(start, size);
  auto it = regions_.upper_bound(start);
  if (it != regions_.begin()) --it;
  while (it != regions_.end() && it->first <= last) {
    MemoryRegion r = it->second;
    uint64_t rlast = last_byte(r.start, r.size);
    if (rlast < start) {
      ++it;
      continue;
    }
    it = regions_.erase(it);
    if (r.start < start) {  // keep the head
      MemoryRegion head = r;
      head.size = start - r.start;
      regions_[head.start] = head;
    }
    if (rlast > last) {  // keep the tail
      MemoryRegion tail = r;
      tail.start = last + 1;
      tail.size = rlast - last;
      it = regions_.emplace(tail.start, tail).first;
      ++it;
    }
  }
}

void MemoryRegions::protect(uint64_t start, uint64_t size, uint8_t prot) {
  if (size == 0) return;
  uint64_t last = last_byte(start, size);
  std::vector<MemoryRegion> changed;
  for (auto& [s, r] : regions_) {
    uint64_t lo = std::max(s, start), hi = std::min(last_byte(s, r.size), last);
    if (lo <= hi) changed.push_back(MemoryRegion{lo, span_size(lo, hi), prot, r.name});
  }
  for (auto& c : changed) map(c);
}

const MemoryRegion* MemoryRegions::find(uint64_t addr) const {
  auto it = regions_.upper_bound(addr);
  if (it == regions_.begin()) return nullptr;
  --it;
  return addr - it->second.start < it->second.size ? &it->second : nullptr;
}

const MemoryRegion* MemoryRegions::next_after(uint64_t addr) const {
  auto it = regions_.upper_bound(addr);
  return it == regions_.end() ? nullptr : &it->second;
}

bool MemoryRegions::operator==(const MemoryRegions& o) const {
  if (regions_.size() != o.regions_.size()) return false;
  auto a = regions_.begin();
  auto b = o.regions_.begin();
  for (; a != regions_.end(); ++a, ++b) {
    if (a->second.start != b->second.start || a->second.size != b->second.size ||
        a->second.prot != b->second.prot || a->second.name != b->second.name)
      return false;
  }
  return true;
}

ThreadState& MachineState::thread(uint64_t tid, uint64_t pid) {
  auto it = threads_.find(tid);
  if (it != threads_.end()) return it->second;
  ThreadState t{tid, pid, RegisterFile(*arch_), true};
  process(pid);
  return threads_.emplace(tid, std::move(t)).first->second;
}

const ThreadState* MachineState::find_thread(uint64_t tid) const {
  auto it = threads_.find(tid);
  return it == threads_.end() ? nullptr : &it->second;
}

ProcessState& MachineState::process(uint64_t pid) {
  auto it = processes_.find(pid);
  if (it != processes_.end()) return it->second;
  ProcessState p;
  p.pid = pid;
  return processes_.emplace(pid, std::move(p)).first->second;
}

const ProcessState* MachineState::find_process(uint64_t pid) const {
  auto it = processes_.find(pid);
  return it == processes_.end() ? nullptr : &it->second;
}

uint64_t MachineState::digest() const {
  XXH3_state_t* h = XXH3_createState();
  XXH3_64bits_reset(h);
  auto put64 = [&](uint64_t v) { XXH3_64bits_update(h, &v, sizeof v); };
  put64(uint64_t(arch_ ? arch_->id : ArchId::X86_64));
  for (const auto& [tid, t] : threads_) {
    put64(tid);
    put64(t.pid);
    put64(t.alive);
    auto bytes = t.regs.all_bytes();
    XXH3_64bits_update(h, bytes.data(), bytes.size());
    for (uint16_t r = 0; r < arch_->regs.size(); ++r) put64(t.regs.valid(r));
  }
  for (const auto& [pid, p] : processes_) {
    put64(pid);
    std::vector<uint64_t> nos;
    nos.reserve(p.memory.pages().size());
    for (const auto& [no, page] : p.memory.pages())
      if (!page->none_valid()) nos.push_back(no);
    std::sort(nos.begin(), nos.end());
    for (uint64_t no : nos) {
      put64(no);
      XXH3_64bits_update(h, p.memory.pages().at(no).get(), sizeof(Page));
    }
    for (const auto& [s, r] : p.regions.all()) {
      put64(r.start);
      put64(r.size);
      put64(r.prot);
      XXH3_64bits_update(h, r.name.data(), r.name.size());
    }
  }
  uint64_t d = XXH3_64bits_digest(h);
  XXH3_freeState(h);
  return d;
}

std::optional<Error> MachineState::memory_fault() const {
  for (const auto& [pid, p] : processes_)
    if (p.memory.fault()) return p.memory.fault();
  return std::nullopt;
}

void MachineState::clear_memory_faults() {
  for (auto& [pid, p] : processes_) p.memory.clear_fault();
}

}  // namespace ttd
