#include "formats/tenet/testing/tenet_writer.h"

#include <cctype>

namespace ttd::fmt::tenet {

namespace {

std::string cased(std::string s, bool upper) {
  for (char& c : s) c = char(upper ? std::toupper(uint8_t(c)) : std::tolower(uint8_t(c)));
  return s;
}

}  // namespace

TenetWriter::TenetWriter(std::vector<std::string> register_names, std::string ip_name, TenetStyle style)
    : style_(style) {
  for (auto& n : register_names) names_.push_back(cased(n, style.uppercase) + "=");
  ip_name_ = cased(ip_name, style.uppercase) + "=";
  previous_.assign(names_.size(), 0);
}

void TenetWriter::hex(uint64_t v, std::string& out) const {
  const char* digits = style_.uppercase ? "0123456789ABCDEF" : "0123456789abcdef";
  if (style_.hex_prefix) out += "0x";
  char buf[16];
  int n = 0;
  do {
    buf[n++] = digits[v & 15];
    v >>= 4;
  } while (v);
  while (n) out += buf[--n];
}

void TenetWriter::line(std::span<const uint64_t> regs, uint64_t pc, std::span<const WrittenAccess> previous_accesses,
                       std::string& out) {
  for (size_t i = 0; i < names_.size() && i < regs.size(); ++i) {
    bool changed = regs[i] != previous_[i] || (first_ && !style_.first_line_omits_zero);
    if (!changed) continue;
    out += names_[i];
    hex(regs[i], out);
    out += ',';
    previous_[i] = regs[i];
  }
  first_ = false;
  // pc always, and last: it spares the tracer the comma logic.
  out += ip_name_;
  hex(pc, out);
  const char* digits = style_.uppercase ? "0123456789ABCDEF" : "0123456789abcdef";
  for (const WrittenAccess& a : previous_accesses) {
    out += a.kind == AccessKind::Read ? ",mr=" : a.kind == AccessKind::Write ? ",mw=" : ",mrw=";
    hex(a.addr, out);
    out += ':';
    for (uint8_t b : a.bytes) {
      out += digits[b >> 4];
      out += digits[b & 15];
    }
  }
  out += '\n';
}

}  // namespace ttd::fmt::tenet
