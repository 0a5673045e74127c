#include "tools/recorder/host_shared_memory.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstdio>
#include <cstring>

namespace ttd::rec {

HostSharedMemory::~HostSharedMemory() {
  for (auto& [addr, p] : pieces_) ::munmap(p->host, p->size);
}

uint64_t HostSharedMemory::on_read(uc_engine*, uint64_t offset, unsigned size, void* piece) {
  auto* p = static_cast<Piece*>(piece);
  HostSharedMemory& m = *p->owner;
  m.hold();
  uint64_t v = 0;
  size = std::min<unsigned>(size, 8);
  std::memcpy(&v, p->host + offset, size);
  if (m.observer_ && std::memcmp(p->shadow.data() + offset, &v, size) != 0) {
    std::memcpy(p->shadow.data() + offset, &v, size);
    m.observer_(p->addr + offset, size, v);
  }
  return v;
}

void HostSharedMemory::on_write(uc_engine*, uint64_t offset, unsigned size, uint64_t value, void* piece) {
  auto* p = static_cast<Piece*>(piece);
  HostSharedMemory& m = *p->owner;
  m.hold();
  size = std::min<unsigned>(size, 8);
  std::memcpy(p->host + offset, &value, size);
  if (m.observer_) std::memcpy(p->shadow.data() + offset, &value, size);
}

Status HostSharedMemory::map_piece(std::unique_ptr<Piece> p) {
  Piece* raw = p.get();
  const uc_err err = uc_mmio_map(uc_, p->addr, p->size, &on_read, raw, &on_write, raw);
  if (err != UC_ERR_OK) {
    char where[64];
    std::snprintf(where, sizeof where, "[0x%llx, 0x%llx)", (unsigned long long)p->addr,
                  (unsigned long long)(p->addr + p->size));
    return make_error("emulator", std::string("cannot map shared memory ") + where + ": " + uc_strerror(err));
  }
  pieces_[p->addr] = std::move(p);
  return {};
}

Status HostSharedMemory::map(uint64_t addr, uint64_t size, uint8_t* host) {
  auto p = std::make_unique<Piece>(Piece{this, addr, size, host, {}});
  if (observer_) p->shadow.assign(host, host + size);
  if (Status st = map_piece(std::move(p)); !st) {
    ::munmap(host, size);
    return st;
  }
  return {};
}

Status HostSharedMemory::unmap(uint64_t addr, uint64_t size) {
  const uint64_t end = addr + size;
  auto it = pieces_.upper_bound(addr);
  if (it != pieces_.begin()) --it;
  while (it != pieces_.end() && it->first < end) {
    Piece& p = *it->second;
    const uint64_t p_end = p.addr + p.size;
    if (p_end <= addr) {
      ++it;
      continue;
    }
    std::unique_ptr<Piece> old = std::move(it->second);
    it = pieces_.erase(it);
    if (uc_mem_unmap(uc_, old->addr, old->size) != UC_ERR_OK) return make_error("emulator", "cannot unmap shared memory");
    const uint64_t cut_from = std::max(addr, old->addr), cut_to = std::min(end, p_end);
    ::munmap(old->host + (cut_from - old->addr), cut_to - cut_from);
    auto keep = [&](uint64_t from, uint64_t to) -> Status {
      if (from >= to) return {};
      auto q = std::make_unique<Piece>(Piece{this, from, to - from, old->host + (from - old->addr), {}});
      if (!old->shadow.empty())
        q->shadow.assign(old->shadow.begin() + (from - old->addr), old->shadow.begin() + (to - old->addr));
      return map_piece(std::move(q));
    };
    if (Status st = keep(old->addr, cut_from); !st) return st;
    if (Status st = keep(cut_to, p_end); !st) return st;
    it = pieces_.upper_bound(cut_to - 1);
  }
  return {};
}

bool HostSharedMemory::overlaps(uint64_t addr, uint64_t size) const {
  if (pieces_.empty()) return false;
  auto it = pieces_.upper_bound(addr);
  if (it != pieces_.begin()) {
    auto prev = std::prev(it);
    if (prev->second->addr + prev->second->size > addr) return true;
  }
  return it != pieces_.end() && it->first < addr + size;
}

void HostSharedMemory::split(uint64_t addr, uint64_t size, const std::function<void(uint64_t, uint8_t*, uint64_t)>& f,
                             const std::function<void(uint64_t, uint64_t)>& g) const {
  const uint64_t end = addr + size;
  uint64_t at = addr;
  auto it = pieces_.upper_bound(addr);
  if (it != pieces_.begin()) --it;
  for (; at < end && it != pieces_.end(); ++it) {
    const Piece& p = *it->second;
    if (p.addr + p.size <= at) continue;
    if (p.addr >= end) break;
    if (p.addr > at) g(at, p.addr - at), at = p.addr;
    const uint64_t to = std::min(end, p.addr + p.size);
    f(at, p.host + (at - p.addr), to - at);
    at = to;
  }
  if (at < end) g(at, end - at);
}

void HostSharedMemory::kernel_wrote(uint64_t addr, std::span<const uint8_t> bytes) {
  if (!observer_) return;
  split(
      addr, bytes.size(),
      [&](uint64_t a, uint8_t*, uint64_t n) {
        Piece* p = piece_at(a);
        std::memcpy(p->shadow.data() + (a - p->addr), bytes.data() + (a - addr), n);
      },
      [](uint64_t, uint64_t) {});
}

HostSharedMemory::Piece* HostSharedMemory::piece_at(uint64_t addr) const {
  auto it = pieces_.upper_bound(addr);
  if (it == pieces_.begin()) return nullptr;
  Piece* p = std::prev(it)->second.get();
  return addr < p->addr + p->size ? p : nullptr;
}

void HostSharedMemory::observe(ChangeObserver observer) {
  observer_ = std::move(observer);
  for (auto& [addr, p] : pieces_) p->shadow.assign(p->host, p->host + p->size);
}

void HostSharedMemory::stop_observing() {
  observer_ = nullptr;
  for (auto& [addr, p] : pieces_) p->shadow = {};
}

uint8_t* HostSharedMemory::host_address(uint64_t addr) const {
  const Piece* p = piece_at(addr);
  return p ? p->host + (addr - p->addr) : nullptr;
}

void HostSharedMemory::prepare_fork() {
  if (!lock_) lock_ = std::make_unique<CrossProcessLock>();
}

}  // namespace ttd::rec
