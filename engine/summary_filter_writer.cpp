#include "engine/summary_filter_writer.h"

#include "engine/index_tables.h"

namespace ttd {

void SummaryFilterWriter::end_summary_group(BlobWriter& blobs) {
  filters_.take(pcs_, access_, groups_++);
  static_assert(kGroupEntries[size_t(IndexTable::PcFilters)] == kGroupEntries[size_t(IndexTable::AccessFilters)]);
  if (++in_group_ == kGroupEntries[size_t(IndexTable::PcFilters)]) flush(blobs);
}

void SummaryFilterWriter::finish(BlobWriter& blobs) { flush(blobs); }

void SummaryFilterWriter::flush(BlobWriter& blobs) {
  if (in_group_ == 0) return;
  pc_tickets_.push_back(blobs.put(pcs_.take(), BlobKind::SummaryFilters));
  access_tickets_.push_back(blobs.put(access_.take(), BlobKind::SummaryFilters));
  in_group_ = 0;
}

void SummaryFilterWriter::group_refs(const std::vector<BlobRef>& refs, std::vector<BlobRef>& pcs,
                                     std::vector<BlobRef>& access) const {
  for (uint64_t t : pc_tickets_) pcs.push_back(refs[t]);
  for (uint64_t t : access_tickets_) access.push_back(refs[t]);
}

}  // namespace ttd
