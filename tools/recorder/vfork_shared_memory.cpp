#include "tools/recorder/vfork_shared_memory.h"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <map>

#include "tools/recorder/linux_abi_constants.h"

namespace ttd::rec {

namespace {

bool write_all(int fd, const void* data, size_t size) {
  const auto* p = static_cast<const uint8_t*>(data);
  while (size) {
    const ssize_t n = ::write(fd, p, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    p += n;
    size -= size_t(n);
  }
  return true;
}

constexpr size_t kHeader = 12;  // u64 addr, u32 size

}  // namespace

VforkPageHashes VforkPageHashes::of(const GuestMemory& mem) {
  VforkPageHashes h;
  std::vector<uint8_t> page(mem.page_size());
  for (const auto& [start, r] : mem.regions().all()) {
    if (!(r.prot & kProtWrite)) continue;
    for (uint64_t a = start; a < start + r.size; a += page.size())
      if (const auto hash = mem.page_hash(a, page)) h.pages_.push_back({a, *hash});
  }
  return h;
}

bool VforkPageHashes::send_changed(const GuestMemory& mem, int fd) const {
  std::vector<uint8_t> record(kHeader + mem.page_size());
  const std::span<uint8_t> page(record.data() + kHeader, mem.page_size());
  for (const Page& p : pages_) {
    const auto now = mem.page_hash(p.addr, page);
    if (!now || *now == p.hash) continue;
    const uint32_t size = uint32_t(page.size());
    std::memcpy(record.data(), &p.addr, 8);
    std::memcpy(record.data() + 8, &size, 4);
    if (!write_all(fd, record.data(), record.size())) return false;
  }
  return true;
}

std::vector<ChangedPage> read_changed_pages(int fd) {
  std::vector<uint8_t> in;
  uint8_t buf[1 << 16];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    in.insert(in.end(), buf, buf + n);
  }
  std::vector<ChangedPage> out;
  std::map<uint64_t, size_t> at;  // page -> its index in out
  for (size_t off = 0; in.size() - off >= kHeader;) {
    ChangedPage p;
    uint32_t size = 0;
    std::memcpy(&p.addr, in.data() + off, 8);
    std::memcpy(&size, in.data() + off + 8, 4);
    off += kHeader;
    if (in.size() - off < size) break;
    p.bytes.assign(in.begin() + off, in.begin() + off + size);
    off += size;
    if (auto it = at.find(p.addr); it != at.end()) {
      out[it->second] = std::move(p);
    } else {
      at[p.addr] = out.size();
      out.push_back(std::move(p));
    }
  }
  return out;
}

}  // namespace ttd::rec
