#include "formats/umtrace/module_table.h"

#include "formats/umtrace/itable_header.h"
#include "formats/umtrace/umtrace_layout.h"

namespace ttd::fmt::umtrace {

namespace {

void append_utf8(std::string& out, uint32_t cp) {
  if (cp < 0x80) {
    out += char(cp);
  } else if (cp < 0x800) {
    out += char(0xc0 | (cp >> 6));
    out += char(0x80 | (cp & 0x3f));
  } else if (cp < 0x10000) {
    out += char(0xe0 | (cp >> 12));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  } else {
    out += char(0xf0 | (cp >> 18));
    out += char(0x80 | ((cp >> 12) & 0x3f));
    out += char(0x80 | ((cp >> 6) & 0x3f));
    out += char(0x80 | (cp & 0x3f));
  }
}

// uStr at an absolute file pointer: i16 length in UTF-16 code units, the
// units, a null unit. Unpaired surrogates become U+FFFD.
Result<std::string> read_ustr(const MappedFile& f, const ItableHeader& h, int64_t fp, uint64_t field_at) {
  const uint64_t extra_end = h.extra_fp + h.extra_size;
  if (fp < int64_t(h.extra_fp) || uint64_t(fp) + 4 > extra_end)
    return f.error_at(field_at, "module name at byte " + std::to_string(fp) + " is outside the string area");
  const int16_t len = load_le_i16(f.data() + fp);
  if (len < 0 || uint64_t(fp) + 2 + 2 * uint64_t(len) + 2 > extra_end)
    return f.error_at(uint64_t(fp), "module name of " + std::to_string(len) + " code units runs past the string area");
  std::string out;
  const uint8_t* u = f.data() + fp + 2;
  for (int i = 0; i < len; ++i) {
    uint32_t c = load_le16(u + 2 * i);
    if (c >= 0xd800 && c < 0xdc00 && i + 1 < len) {
      uint32_t lo = load_le16(u + 2 * (i + 1));
      if (lo >= 0xdc00 && lo < 0xe000) {
        c = 0x10000 + ((c - 0xd800) << 10) + (lo - 0xdc00);
        ++i;
      } else {
        c = 0xfffd;
      }
    } else if (c >= 0xd800 && c < 0xe000) {
      c = 0xfffd;
    }
    append_utf8(out, c);
  }
  return out;
}

}  // namespace

Result<std::vector<ModuleRecord>> read_module_table(const std::string& path) {
  using L = ModuleLayout;
  auto opened = MappedFile::open(path);
  if (!opened) return opened.error();
  const MappedFile& f = **opened;
  auto h = read_itable_header(f, {L::kSize, 0, true});
  if (!h) return h.error();
  std::vector<ModuleRecord> out;
  out.reserve(h->row_count);
  for (uint64_t i = 0; i < h->row_count; ++i) {
    const uint64_t row = h->row_offset(i);
    const uint8_t* r = f.data() + row;
    ModuleRecord m;
    m.load_eid = load_le_i64(r + L::kLoadEID);
    m.unload_eid = load_le_i64(r + L::kUnloadEID);
    m.start = load_le64(r + L::kStartAddr);
    m.end = load_le64(r + L::kEndAddr);
    if (m.end < m.start)
      return f.error_at(row + L::kEndAddr, "module " + std::to_string(i) + " ends before it starts");
    // A PE image is at most 4 GiB; anything larger is damage (and would have
    // the reader map and forget an absurd range).
    if (m.end - m.start >= (uint64_t(1) << 32))
      return f.error_at(row + L::kEndAddr, "module " + std::to_string(i) + " spans " +
                                               std::to_string(m.end - m.start + 1) + " bytes, more than a PE image can");
    auto win = read_ustr(f, *h, load_le_i64(r + L::kWinNameFP), row + L::kWinNameFP);
    if (!win) return win.error();
    auto dev = read_ustr(f, *h, load_le_i64(r + L::kDeviceNameFP), row + L::kDeviceNameFP);
    if (!dev) return dev.error();
    m.win_name = std::move(*win);
    m.device_name = std::move(*dev);
    out.push_back(std::move(m));
  }
  return out;
}

}  // namespace ttd::fmt::umtrace
