#include "engine/export/sqlite_index_sorter.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <queue>
#include <span>

namespace ttd::exporting::sqlite_file {

int compare_index_keys(const IndexKey& a, const IndexKey& b) {
  if (a.kind != b.kind) return a.kind < b.kind ? -1 : 1;
  if (a.kind == IndexKey::Int && a.i != b.i) return a.i < b.i ? -1 : 1;
  if (a.kind == IndexKey::Text) {
    const size_t n = std::min(a.text.size(), b.text.size());
    if (int c = n ? std::memcmp(a.text.data(), b.text.data(), n) : 0; c) return c < 0 ? -1 : 1;
    if (a.text.size() != b.text.size()) return a.text.size() < b.text.size() ? -1 : 1;
  }
  return a.rowid < b.rowid ? -1 : a.rowid > b.rowid ? 1 : 0;
}

IndexSorter::IndexSorter(std::string spill_path, size_t run_bytes)
    : spill_path_(std::move(spill_path)), run_bytes_(std::max<size_t>(run_bytes, 1024)) {}

IndexSorter::~IndexSorter() {
  if (fd_ >= 0) ::close(fd_);
  if (map_) ::munmap(map_, run_bytes_ + (size_t(2) << 20));
}

namespace {
int64_t text_prefix(std::string_view s) {
  uint64_t p = 0;
  for (size_t k = 0; k < 8; ++k) p = p << 8 | (k < s.size() ? uint8_t(s[k]) : 0);
  return int64_t(p ^ (uint64_t(1) << 63));  // compared as signed: flip the top bit to keep byte order
}
}  // namespace

Status IndexSorter::add(const IndexKey& k) {
  if (!region_) {
    constexpr size_t kHuge = size_t(2) << 20;
    void* p = ::mmap(nullptr, run_bytes_ + kHuge, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED)
      return make_error(spill_path_, "cannot map " + std::to_string(run_bytes_) + " bytes for the index sort: " + std::strerror(errno));
    map_ = p;
    region_ = reinterpret_cast<char*>((reinterpret_cast<uintptr_t>(p) + kHuge - 1) & ~uintptr_t(kHuge - 1));
    ::madvise(region_, run_bytes_, MADV_HUGEPAGE);  // advice: without it, 4 KiB pages
    entries_ = reinterpret_cast<Entry*>(region_);
  }
  const size_t len = k.kind == IndexKey::Text ? k.text.size() : 0;
  if (len + sizeof(Entry) > run_bytes_ / 2 || len >= (size_t(1) << 30))
    return make_error(spill_path_, "an indexed text value of " + std::to_string(len) + " bytes is too long to index");
  if ((count_ + 1) * sizeof(Entry) + text_bytes_ + len > run_bytes_)
    if (auto s = spill(); !s) return s;
  Entry e{k.kind == IndexKey::Text ? text_prefix(k.text) : k.i, k.rowid, 0, uint32_t(len) << 2 | uint32_t(k.kind)};
  if (len) {
    text_bytes_ += len;
    e.off = uint32_t(text_bytes_);
    std::memcpy(region_ + run_bytes_ - text_bytes_, k.text.data(), len);
  }
  if (sorted_ && count_ && less(e, entries_[count_ - 1])) sorted_ = false;
  entries_[count_++] = e;
  return {};
}

bool IndexSorter::less(const Entry& a, const Entry& b) const {
  if (a.kind() != b.kind()) return a.kind() < b.kind();
  if (a.i != b.i) return a.i < b.i;  // integers, or the texts' first 8 bytes
  if (a.kind() == IndexKey::Text) {
    // Equal first 8 bytes and both no longer: the shorter is less (its
    // padding is zeros), equal lengths are equal texts.
    if (a.len() <= 8 && b.len() <= 8 && a.len() != b.len()) return a.len() < b.len();
    if (a.len() > 8 || b.len() > 8) {
      const int c = compare_index_keys(key_of(a), key_of(b));
      if (c) return c < 0;
    }
  }
  return a.rowid < b.rowid;
}

void IndexSorter::sort_entries() {
  if (sorted_) return;
  std::sort(entries_, entries_ + count_, [this](const Entry& a, const Entry& b) {
    if (a.len_kind == IndexKey::Int && b.len_kind == IndexKey::Int)  // both integers: inline, the common case
      return a.i != b.i ? a.i < b.i : a.rowid < b.rowid;
    return less(a, b);
  });
}

Status IndexSorter::write_spill(const std::string& bytes) {
  const char* p = bytes.data();
  size_t n = bytes.size();
  while (n) {
    const ssize_t w = ::pwrite(fd_, p, n, off_t(spilled_));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0)
      return make_error(spill_path_, std::string("write failed after ") + std::to_string(spilled_) +
                                         " bytes of the index sort: " + (w < 0 ? std::strerror(errno) : "no progress"));
    p += w, n -= size_t(w), spilled_ += uint64_t(w);
  }
  return {};
}

// One run: per entry kind (1 byte), rowid (8), then the integer (8) or the
// text's length (4) and bytes; native byte order (the file is ours alone).
Status IndexSorter::spill() {
  if (fd_ < 0) {
    fd_ = ::open(spill_path_.c_str(), O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd_ < 0) return make_error(spill_path_, std::string("cannot create the index sort's file: ") + std::strerror(errno));
    ::unlink(spill_path_.c_str());
  }
  sort_entries();
  const uint64_t start = spilled_;
  std::string buf;
  buf.reserve(1 << 20);
  for (const Entry& e : std::span(entries_, count_)) {
    buf.push_back(char(e.kind()));
    buf.append(reinterpret_cast<const char*>(&e.rowid), 8);
    if (e.kind() == IndexKey::Text) {
      const uint32_t len = e.len();
      buf.append(reinterpret_cast<const char*>(&len), 4);
      buf.append(text_at(e.off), len);
    } else {
      buf.append(reinterpret_cast<const char*>(&e.i), 8);
    }
    if (buf.size() >= (1 << 20)) {
      if (auto s = write_spill(buf); !s) return s;
      buf.clear();
    }
  }
  if (auto s = write_spill(buf); !s) return s;
  runs_.push_back({start, spilled_ - start});
  count_ = text_bytes_ = 0;
  sorted_ = true;
  return {};
}

namespace {

// Reads one spilled run back entry by entry.
class RunReader {
 public:
  RunReader(int fd, uint64_t offset, uint64_t bytes) : fd_(fd), pos_(offset), end_(offset + bytes) {}
  // false at the run's end; err set on a read error.
  bool next(IndexKey& k, std::string& err) {
    if (!need(9, err)) return false;
    k.kind = IndexKey::Kind(uint8_t(buf_[at_]));
    std::memcpy(&k.rowid, buf_.data() + at_ + 1, 8);
    at_ += 9;
    if (k.kind == IndexKey::Text) {
      uint32_t len = 0;
      if (!need(4, err)) return false;
      std::memcpy(&len, buf_.data() + at_, 4);
      at_ += 4;
      if (!need(len, err)) return false;
      text_.assign(buf_, at_, len);
      k.text = text_;
      at_ += len;
    } else {
      if (!need(8, err)) return false;
      std::memcpy(&k.i, buf_.data() + at_, 8);
      at_ += 8;
      k.text = {};
    }
    return true;
  }

 private:
  bool need(size_t n, std::string& err) {
    if (buf_.size() - at_ >= n) return true;
    buf_.erase(0, at_);
    at_ = 0;
    const size_t want = std::max<size_t>(n - buf_.size(), 256 * 1024);
    const size_t get = size_t(std::min<uint64_t>(want, end_ - pos_));
    const size_t had = buf_.size();
    buf_.resize(had + get);
    size_t got = 0;
    while (got < get) {
      const ssize_t r = ::pread(fd_, buf_.data() + had + got, get - got, off_t(pos_));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) {
        err = std::string("read failed: ") + (r < 0 ? std::strerror(errno) : "end of file");
        return false;
      }
      got += size_t(r), pos_ += uint64_t(r);
    }
    return buf_.size() >= n;
  }
  int fd_;
  uint64_t pos_, end_;
  std::string buf_, text_;
  size_t at_ = 0;
};

}  // namespace

Status IndexSorter::drain(const std::function<void(const IndexKey&)>& emit) {
  if (runs_.empty()) {
    sort_entries();
    for (const Entry& e : std::span(entries_, count_)) emit(key_of(e));
    return {};
  }
  if (count_)
    if (auto s = spill(); !s) return s;
  std::vector<RunReader> readers;
  readers.reserve(runs_.size());
  for (const Run& r : runs_) readers.emplace_back(fd_, r.offset, r.bytes);
  std::vector<IndexKey> heads(readers.size());
  auto later = [&](size_t a, size_t b) { return compare_index_keys(heads[a], heads[b]) > 0; };
  std::priority_queue<size_t, std::vector<size_t>, decltype(later)> heap(later);
  std::string err;
  for (size_t i = 0; i < readers.size(); ++i)
    if (readers[i].next(heads[i], err)) heap.push(i);
  while (!heap.empty() && err.empty()) {
    const size_t i = heap.top();
    heap.pop();
    emit(heads[i]);
    if (readers[i].next(heads[i], err)) heap.push(i);
  }
  if (!err.empty()) return make_error(spill_path_, "index sort: " + err);
  return {};
}

}  // namespace ttd::exporting::sqlite_file
