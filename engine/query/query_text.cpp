#include "engine/query/query_text.h"

#include <charconv>
#include <cstdio>

namespace ttd::query {

Result<uint64_t> parse_number(const std::string& text, const std::string& what) {
  std::string_view s = text;
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    s.remove_prefix(2);
    base = 16;
  }
  uint64_t v = 0;
  auto r = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (s.empty() || r.ec != std::errc() || r.ptr != s.data() + s.size()) {
    if (r.ec == std::errc::result_out_of_range) return make_error(what, "number too large for 64 bits: '" + text + "'");
    return make_error(what, "expected a number (decimal or 0x-hex), got '" + text + "'");
  }
  return v;
}

Result<AddressRange> parse_address_range(const std::string& text, const std::string& what) {
  auto colon = text.find(':');
  if (colon == std::string::npos)
    return make_error(what, "expected ADDR:LEN (e.g. 0x7ffc1000:8), got '" + text + "'");
  auto addr = parse_number(text.substr(0, colon), what);
  if (!addr) return addr.error();
  auto len = parse_number(text.substr(colon + 1), what);
  if (!len) return len.error();
  return make_range(*addr, *len, what);
}

Result<std::pair<uint64_t, uint64_t>> parse_pc_range(const std::string& text, const std::string& what) {
  auto colon = text.find(':');
  auto lo = parse_number(text.substr(0, colon), what);
  if (!lo) return lo.error();
  uint64_t len = 1;
  if (colon != std::string::npos) {
    auto l = parse_number(text.substr(colon + 1), what);
    if (!l) return l.error();
    len = *l;
  }
  if (len == 0) return make_error(what, "empty pc range (length 0)");
  uint64_t hi = *lo + len;
  if (hi < *lo && hi != 0) return make_error(what, "pc range overflows the address space: '" + text + "'");
  return std::make_pair(*lo, hi);
}

Result<QueryStart> resolve_window_args(const Trace& t, const WindowArgs& a) {
  std::optional<uint64_t> from, to, at;
  auto number = [](const std::string& text, const std::string& what, std::optional<uint64_t>& out) -> Status {
    if (text.empty()) return {};
    auto v = parse_number(text, what);
    if (!v) return make_error(what, "expected an EID (decimal or 0x-hex), got '" + text + "'");
    out = *v;
    return {};
  };
  if (auto s = number(a.from, "--from", from); !s) return s.error();
  if (auto s = number(a.to, "--to", to); !s) return s.error();
  if (auto s = number(a.at, "--at", at); !s) return s.error();
  std::optional<ResumeToken> resume;
  if (!a.resume.empty()) {
    auto r = parse_resume_token(a.resume);
    if (!r) return make_error("--resume", r.error().message);
    resume = *r;
  }
  auto q = resolve_window(t, from, to, at, a.backward, resume);
  if (!q) {
    Error e = q.error();
    if (e.where == "from" || e.where == "to" || e.where == "at" || e.where == "resume") e.where = "--" + e.where;
    return e;
  }
  return q;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string hex_bytes(const uint8_t* p, size_t n) {
  static const char* d = "0123456789abcdef";
  std::string s;
  s.reserve(2 * n);
  for (size_t i = 0; i < n; ++i) {
    s += d[p[i] >> 4];
    s += d[p[i] & 15];
  }
  return s;
}

}  // namespace ttd::query
