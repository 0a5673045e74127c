#include "formats/umtrace/context_record.h"

#include <algorithm>

#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<ContextView> ContextView::parse(const ExecRecord& r, uint64_t at, uint16_t dump_size, const std::string& path) {
  using L = ContextLayout;
  const std::string rec = "record " + std::to_string(r.eid);
  const uint64_t file_at = r.data_offset() + at;
  if (at > r.data_size || r.data_size - at < L::kMemRefs)
    return make_error_at(path, file_at, rec + ": register context cut short (" + std::to_string(r.data_size - std::min(at, r.data_size)) +
                                            " bytes, at least 16 needed)");
  const uint64_t avail = r.data_size - at;
  const uint8_t* base = r.data + at;
  ContextView v;
  v.base_ = base;
  const int32_t count = load_le_i32(base + L::kMemCount);
  if (count < 0 || uint64_t(count) > (avail - L::kMemRefs) / L::kMemRefSize)
    return make_error_at(path, file_at + L::kMemCount, rec + ": " + std::to_string(count) +
                                                           " memory references do not fit in the " +
                                                           std::to_string(avail) + "-byte context");
  v.mem_count_ = uint32_t(count);
  const int64_t regs_fp = load_le_i64(base + L::kRegsFP);
  if (regs_fp < 0 || uint64_t(regs_fp) > avail || avail - uint64_t(regs_fp) < dump_size)
    return make_error_at(path, file_at + L::kRegsFP, rec + ": register dump of " + std::to_string(dump_size) +
                                                         " bytes at context offset " + std::to_string(regs_fp) +
                                                         " runs past the " + std::to_string(avail) + "-byte context");
  v.regs_ = base + regs_fp;
  for (uint32_t i = 0; i < v.mem_count_; ++i) {
    const uint8_t* m = base + L::kMemRefs + uint64_t(i) * L::kMemRefSize;
    const int64_t size = load_le_i64(m + L::kMemSize), fp = load_le_i64(m + L::kMemDataFP);
    if (size < 0 || fp < 0 || uint64_t(fp) > avail || avail - uint64_t(fp) < uint64_t(size))
      return make_error_at(path, file_at + L::kMemRefs + uint64_t(i) * L::kMemRefSize,
                           rec + ": memory reference " + std::to_string(i) + " (" + std::to_string(size) +
                               " bytes at context offset " + std::to_string(fp) + ") runs past the " +
                               std::to_string(avail) + "-byte context");
  }
  return v;
}

ContextMemRef ContextView::mem(uint32_t i) const {
  using L = ContextLayout;
  const uint8_t* m = base_ + L::kMemRefs + uint64_t(i) * L::kMemRefSize;
  return {load_le64(m + L::kMemAddress), base_ + load_le_i64(m + L::kMemDataFP), load_le64(m + L::kMemSize)};
}

}  // namespace ttd::fmt::umtrace
