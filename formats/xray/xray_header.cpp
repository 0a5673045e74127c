#include "formats/xray/xray_header.h"

#include "state/byte_order.h"

namespace ttd::fmt::xray {

Result<FileHeader> parse_file_header(std::span<const uint8_t> b, const std::string& where) {
  if (b.size() < kFileHeaderSize)
    return make_error_at(where, b.size(),
                         "file too short for an XRay header (" + std::to_string(b.size()) + " of 32 bytes)");
  FileHeader h;
  h.version = load_le16(b.data());
  uint16_t type = load_le16(b.data() + 2);
  if (type > 1)
    return make_error_at(where, 2, "unknown XRay log type " + std::to_string(type) + " (0 = basic, 1 = FDR)");
  h.type = LogType(type);
  // Only the two low bits of the bitfield mean anything; the runtime leaves
  // the rest uninitialised (basic logs show 0xff there).
  uint32_t bits = load_le32(b.data() + 4);
  h.constant_tsc = bits & 1u;
  h.nonstop_tsc = bits & 2u;
  h.cycle_frequency = load_le64(b.data() + 8);
  h.buffer_size = load_le64(b.data() + 16);
  uint16_t max = h.is_fdr() ? kMaxFdrVersion : kMaxBasicVersion;
  if (h.version < 1 || h.version > max)
    return make_error_at(where, 0,
                         "unsupported XRay " + std::string(h.is_fdr() ? "FDR" : "basic") + " log version " +
                             std::to_string(h.version) + " (this reader knows versions 1 to " + std::to_string(max) +
                             ")");
  return h;
}

Result<FileWindow> open_xray_file(const std::string& path, size_t window) {
  auto in = FileWindow::open(path, window, "an XRay log (not a regular file)");
  if (!in) return in.error();
  if (!in->regular()) return make_error(path, "not a regular file");
  return in;
}

Result<FileHeader> read_file_header(FileWindow& in) {
  size_t n = in.file_size() < kFileHeaderSize ? size_t(in.file_size()) : kFileHeaderSize;
  const uint8_t* p = nullptr;
  if (n) {
    auto v = in.view(0, n);
    if (!v) return v.error();
    p = *v;
  }
  auto h = parse_file_header({p, p ? n : 0}, in.path());
  if (h) in.skip(kFileHeaderSize);
  return h;
}

bool looks_like_xray(std::span<const uint8_t> head, uint64_t file_size) {
  if (head.size() < kFileHeaderSize) return false;
  uint16_t version = load_le16(head.data());
  uint16_t type = load_le16(head.data() + 2);
  if (type == uint16_t(LogType::Fdr)) {
    if (version < 1 || version > kMaxFdrVersion) return false;
    if (file_size == kFileHeaderSize) return true;  // header only: nothing was flushed
    if (head.size() <= kFileHeaderSize) return false;
    // The first record of the first buffer: NewBuffer in v1, BufferExtents
    // (metadata kind 7) from v2 on.
    uint8_t first = head[kFileHeaderSize];
    return version == 1 ? first == 0x01 : first == 0x0f;
  }
  if (type == uint16_t(LogType::Basic)) {
    if (version < 1 || version > kMaxBasicVersion) return false;
    if (file_size == kFileHeaderSize) return true;
    // First record: record type 0 (a function record) with action 0..3. A
    // partial last record is left to the reader, which names its offset.
    if (head.size() < kFileHeaderSize + 32) return false;
    return load_le16(head.data() + kFileHeaderSize) == 0 && head[kFileHeaderSize + 3] <= 3;
  }
  return false;
}

}  // namespace ttd::fmt::xray
