#include "engine/trace_text.h"

#include <cstdint>

namespace ttd {

namespace {
// Length of the well-formed UTF-8 sequence at s[i], or 0 when the byte
// there does not start one (RFC 3629, table 3-7 of the Unicode standard).
size_t sequence_length(std::string_view s, size_t i) {
  auto at = [&](size_t k) { return i + k < s.size() ? uint8_t(s[i + k]) : uint8_t(0); };
  auto cont = [&](size_t k, uint8_t lo = 0x80, uint8_t hi = 0xbf) { return at(k) >= lo && at(k) <= hi; };
  uint8_t b = at(0);
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return cont(1) ? 2 : 0;
  if (b == 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0;
  if (b == 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0;  // no surrogates
  if (b >= 0xe1 && b <= 0xef) return cont(1) && cont(2) ? 3 : 0;
  if (b == 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0;
  if (b >= 0xf1 && b <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0;
  if (b == 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0;
  return 0;
}
}  // namespace

bool is_valid_utf8(std::string_view s) {
  for (size_t i = 0; i < s.size();) {
    size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string text_from_trace(std::string_view s) {
  if (is_valid_utf8(s)) return std::string(s);
  static const char hex[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size() + 16);
  for (size_t i = 0; i < s.size();) {
    size_t n = sequence_length(s, i);
    if (n) {
      out.append(s.substr(i, n));
      i += n;
      continue;
    }
    uint8_t b = uint8_t(s[i++]);
    out += "\\x";
    out += hex[b >> 4];
    out += hex[b & 15];
  }
  return out;
}

void make_text_valid(fmt::TraceInfo& info) {
  for (std::string* s : {&info.format, &info.os, &info.exec_path, &info.caps.note}) *s = text_from_trace(*s);
  for (auto& [k, v] : info.properties) {
    k = text_from_trace(k);
    v = text_from_trace(v);
  }
}

}  // namespace ttd
