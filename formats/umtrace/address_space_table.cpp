#include "formats/umtrace/address_space_table.h"

#include "formats/umtrace/itable_header.h"
#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

Result<std::vector<AddressRange>> read_address_space_table(const std::string& path) {
  using L = AddressRangeLayout;
  auto opened = MappedFile::open(path);
  if (!opened) return opened.error();
  const MappedFile& f = **opened;
  auto h = read_itable_header(f, {L::kSize, 0, false});
  if (!h) return h.error();
  std::vector<AddressRange> out;
  out.reserve(h->row_count);
  for (uint64_t i = 0; i < h->row_count; ++i) {
    const uint64_t row = h->row_offset(i);
    AddressRange a{load_le64(f.data() + row + L::kFirst), load_le64(f.data() + row + L::kLast)};
    if ((a.first & 0xfff) != 0 || ((a.last + 1) & 0xfff) != 0 || a.last <= a.first)
      return f.error_at(row, "address range " + std::to_string(i) + " is not a run of whole 4 KiB pages");
    out.push_back(a);
  }
  return out;
}

}  // namespace ttd::fmt::umtrace
