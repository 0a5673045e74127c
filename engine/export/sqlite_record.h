// SQLite's file-format encodings that the export's database writer needs
// (https://www.sqlite.org/fileformat2.html, "Record Format" and
// "Variable-Length Integers"): varints, integer serial types and records.
// Pure functions over byte strings; no I/O.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "state/byte_order.h"

namespace ttd::exporting::sqlite_file {

// Bytes of v as SQLite's big-endian varint (1..9).
inline size_t varint_len(uint64_t v) {
  size_t n = 1;
  while (n < 9 && v > 0x7f) {
    v >>= 7;
    ++n;
  }
  return n;  // 9 bytes hold 64 bits (the last byte 8 of them)
}

inline void append_varint(std::string& out, uint64_t v) {
  uint8_t buf[10];
  if (v & (uint64_t(0xff000000) << 32)) {  // needs all 9 bytes: the 9th holds 8 bits
    buf[8] = uint8_t(v);
    v >>= 8;
    for (int i = 7; i >= 0; --i) {
      buf[i] = uint8_t((v & 0x7f) | 0x80);
      v >>= 7;
    }
    out.append(reinterpret_cast<const char*>(buf), 9);
    return;
  }
  size_t n = 0;
  do {
    buf[n++] = uint8_t((v & 0x7f) | 0x80);
    v >>= 7;
  } while (v != 0);
  buf[0] &= 0x7f;
  for (size_t i = n; i-- > 0;) out.push_back(char(buf[i]));
}

inline void append_be32(std::string& out, uint32_t v) {
  uint8_t b[4];
  store_be32(b, v);
  out.append(reinterpret_cast<const char*>(b), 4);
}

// The serial type SQLite gives an integer (8 and 9: the constants 0 and 1,
// schema format 4), and the body bytes each type takes.
inline uint32_t int_serial_type(int64_t v) {
  if (v == 0) return 8;
  if (v == 1) return 9;
  const uint64_t u = v < 0 ? ~uint64_t(v) : uint64_t(v);
  if (u <= 0x7f) return 1;
  if (u <= 0x7fff) return 2;
  if (u <= 0x7fffff) return 3;
  if (u <= 0x7fffffff) return 4;
  if (u <= 0x7fffffffffffULL) return 5;
  return 6;
}
inline size_t int_body_len(uint32_t type) {
  static constexpr uint8_t kLen[10] = {0, 1, 2, 3, 4, 6, 8, 0, 0, 0};
  return type < 10 ? kLen[type] : 0;
}

// Builds one record column by column: serial types into the header, values
// into the body; record() joins them behind the header's length.
class RecordBuilder {
 public:
  void clear() { types_.clear(), body_.clear(); }
  void null() { types_.push_back(0); }
  void integer(int64_t v) {
    const uint32_t t = int_serial_type(v);
    types_.push_back(char(t));
    for (size_t k = int_body_len(t); k-- > 0;) body_.push_back(char(uint64_t(v) >> (8 * k)));
  }
  void text(std::string_view s) {
    append_varint(types_, 13 + 2 * uint64_t(s.size()));
    body_.append(s);
  }
  // Header length varint, serial types, body.
  void record(std::string& out) const {
    const uint64_t h = types_.size();
    uint64_t n = 1;
    while (varint_len(h + n) > n) ++n;
    out.clear();
    append_varint(out, h + n);
    out.append(types_);
    out.append(body_);
  }

 private:
  std::string types_, body_;
};

}  // namespace ttd::exporting::sqlite_file
