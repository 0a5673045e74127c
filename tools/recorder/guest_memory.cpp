#include "tools/recorder/guest_memory.h"

#include <sys/mman.h>
#include <xxhash.h>

#include <cerrno>
#include <cstring>
#include <vector>

namespace ttd::rec {

namespace {

Status uc_status(uc_err err, const char* what, uint64_t addr, uint64_t size) {
  if (err == UC_ERR_OK) return {};
  char buf[96];
  std::snprintf(buf, sizeof buf, " [0x%llx, 0x%llx)", (unsigned long long)addr,
                (unsigned long long)(addr + size));
  return make_error("emulator", std::string(what) + buf + ": " + uc_strerror(err));
}

// The parts of [addr, addr+size) that are mapped, as (start, size) pairs.
std::vector<std::pair<uint64_t, uint64_t>> mapped_parts(const MemoryRegions& regions, uint64_t addr,
                                                        uint64_t size) {
  std::vector<std::pair<uint64_t, uint64_t>> parts;
  uint64_t end = addr + size;
  uint64_t at = addr;
  while (at < end) {
    const MemoryRegion* r = regions.find(at);
    if (!r) r = regions.next_after(at);
    if (!r || r->start >= end) break;
    uint64_t s = std::max(at, r->start), e = std::min(end, r->start + r->size);
    parts.emplace_back(s, e - s);
    at = e;
  }
  return parts;
}

}  // namespace

Status GuestMemory::map(uint64_t addr, uint64_t size, uint8_t prot, std::string name) {
  if (size == 0) return {};
  if (auto st = unmap(addr, size); !st) return st;
  if (auto st = uc_status(uc_mem_map(uc_, addr, size, prot), "cannot map", addr, size); !st) return st;
  if (!first_mapped_) first_mapped_ = addr;
  regions_.map({addr, size, prot, std::move(name)});
  return {};
}

Status GuestMemory::map_shared(uint64_t addr, uint64_t size, uint8_t prot, std::string name, uint8_t* host) {
  if (auto st = unmap(addr, size); !st) {
    ::munmap(host, size);
    return st;
  }
  if (auto st = shared_.map(addr, size, host); !st) return st;
  if (!first_mapped_) first_mapped_ = addr;
  regions_.map({addr, size, prot, std::move(name)});
  return {};
}

Status GuestMemory::make_shared(uint64_t addr, uint64_t size) {
  if (shared_.overlaps(addr, size)) return {};
  void* p = ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
  if (p == MAP_FAILED) return make_error("emulator", std::string("cannot make shared memory: ") + std::strerror(errno));
  auto* host = static_cast<uint8_t*>(p);
  if (!read(addr, {host, size})) {
    ::munmap(p, size);
    return make_error("emulator", "cannot read memory to share");
  }
  if (auto st = uc_status(uc_mem_unmap(uc_, addr, size), "cannot unmap", addr, size); !st) {
    ::munmap(p, size);
    return st;
  }
  return shared_.map(addr, size, host);
}

Status GuestMemory::unmap(uint64_t addr, uint64_t size) {
  for (auto [s, n] : mapped_parts(regions_, addr, size)) {
    if (shared_.overlaps(s, n)) {
      if (auto st = shared_.unmap(s, n); !st) return st;
      continue;
    }
    if (auto st = uc_status(uc_mem_unmap(uc_, s, n), "cannot unmap", s, n); !st) return st;
  }
  regions_.unmap(addr, size);
  return {};
}

Status GuestMemory::protect(uint64_t addr, uint64_t size, uint8_t prot) {
  uint64_t covered = 0;
  auto parts = mapped_parts(regions_, addr, size);
  for (auto [s, n] : parts) covered += n;
  if (covered != size) return make_error("mprotect", "range is not entirely mapped");
  for (auto [s, n] : parts) {
    if (shared_.overlaps(s, n)) continue;  // not enforced on shared memory (host_shared_memory.h)
    if (auto st = uc_status(uc_mem_protect(uc_, s, n, prot), "cannot protect", s, n); !st) return st;
  }
  regions_.protect(addr, size, prot);
  return {};
}

std::optional<uint64_t> GuestMemory::find_free(uint64_t size, uint64_t above, uint64_t below) const {
  size = page_up(size);
  if (size == 0 || size > below - above) return std::nullopt;
  // Walk the regions from the top down, trying the gap above each one.
  uint64_t gap_end = below;
  const auto& all = regions_.all();
  auto it = all.lower_bound(below);
  while (true) {
    uint64_t gap_start = above;
    if (it != all.begin()) {
      auto prev = std::prev(it);
      gap_start = std::max(above, prev->second.start + prev->second.size);
    }
    if (gap_end >= gap_start && gap_end - gap_start >= size) return gap_end - size;
    if (it == all.begin()) return std::nullopt;
    --it;
    gap_end = std::min(gap_end, it->second.start);
    if (gap_end <= above) return std::nullopt;
  }
}

bool GuestMemory::is_free(uint64_t addr, uint64_t size) const {
  return addr + size >= addr && mapped_parts(regions_, addr, size).empty();
}

bool GuestMemory::accessible(uint64_t addr, uint64_t size, uint8_t prot) const {
  uint64_t covered = 0;
  for (auto [s, n] : mapped_parts(regions_, addr, size)) {
    if ((regions_.find(s)->prot & prot) != prot) return false;
    covered += n;
  }
  return covered == size;
}

bool GuestMemory::read(uint64_t addr, std::span<uint8_t> out) const {
  if (out.empty()) return true;
  if (!shared_.overlaps(addr, out.size())) return uc_mem_read(uc_, addr, out.data(), out.size()) == UC_ERR_OK;
  // Shared pieces straight from the host (Unicorn would go through the
  // MMIO callbacks, which are for the guest's own loads).
  bool ok = true;
  shared_.split(
      addr, out.size(), [&](uint64_t a, uint8_t* host, uint64_t n) { std::memcpy(out.data() + (a - addr), host, n); },
      [&](uint64_t a, uint64_t n) { ok = ok && uc_mem_read(uc_, a, out.data() + (a - addr), n) == UC_ERR_OK; });
  return ok;
}

std::optional<uint64_t> GuestMemory::page_hash(uint64_t addr, std::span<uint8_t> page) const {
  if (page.size() != page_ || !read(addr, page)) return std::nullopt;
  return XXH3_64bits(page.data(), page.size());
}

bool GuestMemory::write(uint64_t addr, std::span<const uint8_t> bytes) {
  if (bytes.empty()) return true;
  if (!shared_.overlaps(addr, bytes.size())) return uc_mem_write(uc_, addr, bytes.data(), bytes.size()) == UC_ERR_OK;
  bool ok = true;
  shared_.split(
      addr, bytes.size(), [&](uint64_t a, uint8_t* host, uint64_t n) { std::memcpy(host, bytes.data() + (a - addr), n); },
      [&](uint64_t a, uint64_t n) { ok = ok && uc_mem_write(uc_, a, bytes.data() + (a - addr), n) == UC_ERR_OK; });
  shared_.kernel_wrote(addr, bytes);
  return ok;
}

}  // namespace ttd::rec
