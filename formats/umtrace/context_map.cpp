#include "formats/umtrace/context_map.h"

#include <algorithm>
#include <cctype>

#include "formats/umtrace/mapped_file.h"
#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

namespace {

using L = ContextMapLayout;

// An id field (common name, largest enclosing register) must name an entry
// of the table; -1 is accepted as "none".
bool valid_id(int16_t id, uint16_t elem_count) { return id == -1 || (id >= 0 && id < elem_count); }

Status read_reg_map(const MappedFile& f, uint32_t base, uint16_t elem_count, uint16_t dump_size,
                    std::array<ContextRegInfo, ContextMap::kEntries>& out) {
  for (uint16_t i = 0; i < elem_count; ++i) {
    const uint64_t at = base + uint64_t(i) * L::kRegInfoSize;
    const uint8_t* p = f.data() + at;
    ContextRegInfo r;
    r.offset = load_le16(p + L::kInfoOffset);
    r.size = p[L::kInfoSize];
    r.eff_largest = load_le_i16(p + L::kInfoEffLargest);
    if (!valid_id(r.eff_largest, elem_count))
      return f.error_at(at + L::kInfoEffLargest, "register " + std::to_string(i) + ": largest enclosing register " +
                                                     std::to_string(r.eff_largest) + " is not among the " +
                                                     std::to_string(elem_count) + " registers of the map");
    if (r.offset == L::kNotInContext || r.size == 0) {
      r = ContextRegInfo{0xffff, 0, r.eff_largest};
    } else if (uint32_t(r.offset) + r.size > dump_size) {
      return f.error_at(at, "register " + std::to_string(i) + " at dump offset " + std::to_string(r.offset) + " (" +
                                std::to_string(r.size) + " bytes) lies past the " + std::to_string(dump_size) +
                                "-byte context dump");
    }
    out[i] = r;
  }
  return {};
}

}  // namespace

Result<ContextMap> ContextMap::read(const std::string& path) {
  auto opened = MappedFile::open(path);
  if (!opened) return opened.error();
  const MappedFile& f = **opened;
  if (!f.contains(0, L::kSize))
    return f.error_at(f.size(), "context map is " + std::to_string(f.size()) + " bytes, shorter than the " +
                                    std::to_string(L::kSize) + " bytes of its four 512-entry arrays");
  ContextMap m;
  m.path_ = path;
  const uint8_t* p = f.data();
  m.dump_size_ = load_le16(p + L::kDumpSize);
  m.elem_count_ = load_le16(p + L::kElemCount);
  if (m.elem_count_ > kEntries)
    return f.error_at(L::kElemCount, "element count " + std::to_string(m.elem_count_) + " exceeds the " +
                                         std::to_string(kEntries) + " entries of the arrays");
  for (uint16_t i = 0; i < m.elem_count_; ++i) {
    const uint64_t at = L::kStrName + uint64_t(i) * L::kNameBytes;
    const char* s = reinterpret_cast<const char*>(p + at);
    const size_t len = std::find(s, s + L::kNameBytes, '\0') - s;
    if (len == L::kNameBytes)
      return f.error_at(at, "register " + std::to_string(i) + ": name is not null-terminated within 16 bytes");
    std::string name(s, len);
    for (char& c : name) {
      if (uint8_t(c) < 0x20 || uint8_t(c) > 0x7e)
        return f.error_at(at, "register " + std::to_string(i) + ": name holds a non-printable byte");
      c = char(std::tolower(uint8_t(c)));
    }
    m.names_[i] = std::move(name);
    m.common_[i] = load_le_i16(p + L::kCommonName + 2u * i);
    if (!valid_id(m.common_[i], m.elem_count_))
      return f.error_at(L::kCommonName + 2u * i, "register " + std::to_string(i) + ": common name " +
                                                     std::to_string(m.common_[i]) + " is not among the " +
                                                     std::to_string(m.elem_count_) + " registers of the map");
  }
  if (auto s = read_reg_map(f, L::kRegMap32, m.elem_count_, m.dump_size_, m.map32_); !s) return s.error();
  if (auto s = read_reg_map(f, L::kRegMap64, m.elem_count_, m.dump_size_, m.map64_); !s) return s.error();
  return m;
}

int ContextMap::find(std::string_view name) const {
  std::string key(name);
  for (char& c : key) c = char(std::tolower(uint8_t(c)));
  for (uint16_t i = 0; i < elem_count_; ++i)
    if (names_[i] == key) return i;
  return -1;
}

}  // namespace ttd::fmt::umtrace
