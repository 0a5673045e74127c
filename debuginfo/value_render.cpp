#include "debuginfo/value_render.h"

#include <cinttypes>
#include <cstdio>
#include <cstring>

namespace ttd::dbg {

bool has_children(const TypeDesc& t) {
  switch (t.kind) {
    case TypeDesc::Kind::Struct: case TypeDesc::Kind::Union: return !t.members.empty();
    case TypeDesc::Kind::Array: return t.count > 0;
    case TypeDesc::Kind::Pointer:
      return t.target && t.target->kind != TypeDesc::Kind::Void && t.target->kind != TypeDesc::Kind::Function &&
             t.target->size > 0;
    default: return false;
  }
}

namespace {

bool all_known(std::span<const uint8_t> known) {
  for (uint8_t k : known)
    if (!k) return false;
  return true;
}

std::string quote_char(uint8_t c) {
  switch (c) {
    case 0: return "'\\0'";
    case '\n': return "'\\n'";
    case '\t': return "'\\t'";
    case '\r': return "'\\r'";
    case '\'': return "'\\''";
    case '\\': return "'\\\\'";
  }
  char buf[8];
  if (c >= 32 && c < 127) std::snprintf(buf, sizeof buf, "'%c'", c);
  else std::snprintf(buf, sizeof buf, "'\\x%02x'", c);
  return buf;
}

// Appends the characters of a C string; stops at NUL, unknown, or max.
std::string quote_string(std::span<const uint8_t> bytes, std::span<const uint8_t> known, bool* truncated) {
  std::string s = "\"";
  size_t i = 0;
  for (; i < bytes.size(); ++i) {
    if (!known[i]) {
      s += "\"...<unknown>";
      return s;
    }
    uint8_t c = bytes[i];
    if (c == 0) break;
    if (c == '"' || c == '\\') s += '\\', s += char(c);
    else if (c == '\n') s += "\\n";
    else if (c >= 32 && c < 127) s += char(c);
    else {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", c);
      s += buf;
    }
  }
  s += '"';
  if (truncated) *truncated = i == bytes.size();
  return s;
}

std::string hex(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%" PRIx64, v);
  return buf;
}

}  // namespace

std::string render_value(const TypeDesc& t, std::span<const uint8_t> bytes, std::span<const uint8_t> known,
                         const MemoryReader& mem) {
  using K = TypeDesc::Kind;
  if (t.kind == K::Struct || t.kind == K::Union) return "{...}";
  if (t.kind == K::Array) {
    if (t.target && t.target->is_char && t.target->size == 1) {
      bool trunc = false;
      std::string s = quote_string(bytes, known, &trunc);
      return trunc ? s + "..." : s;
    }
    return "[" + std::to_string(t.count) + "]";
  }
  if (t.kind == K::Function) return t.name;
  if (bytes.empty() || t.kind == K::Void) return "void";
  if (!all_known(known)) return "<unknown>";
  uint64_t raw = load_le(bytes);
  size_t n = std::min<size_t>(bytes.size(), 8);
  switch (t.kind) {
    case K::Bool: return raw ? "true" : "false";
    case K::Signed: {
      int64_t v = n < 8 ? int64_t(raw << (64 - 8 * n)) >> (64 - 8 * n) : int64_t(raw);
      if (t.is_char && n == 1) return std::to_string(v) + " " + quote_char(uint8_t(raw));
      return std::to_string(v);
    }
    case K::Unsigned:
      if (t.is_char && n == 1) return std::to_string(raw) + " " + quote_char(uint8_t(raw));
      return std::to_string(raw);
    case K::Float: {
      char buf[48];
      if (n == 4) {
        float f;
        uint32_t u = uint32_t(raw);
        std::memcpy(&f, &u, 4);
        std::snprintf(buf, sizeof buf, "%g", double(f));
      } else if (n == 8) {
        double d;
        std::memcpy(&d, &raw, 8);
        std::snprintf(buf, sizeof buf, "%.17g", d);
      } else {
        return "<float of " + std::to_string(bytes.size()) + " bytes>";
      }
      return buf;
    }
    case K::Enum: {
      int64_t v = n < 8 ? int64_t(raw << (64 - 8 * n)) >> (64 - 8 * n) : int64_t(raw);
      for (const auto& [val, name] : t.enumerators)
        if (val == v) return name;
      return std::to_string(v);
    }
    case K::Pointer: {
      if (raw == 0) return "NULL";
      std::string s = hex(raw);
      if (mem && t.target && t.target->is_char && t.target->size == 1) {
        uint8_t buf[64], kn[64];
        size_t got = 0;
        for (; got < sizeof buf; ++got) {
          kn[got] = mem(raw + got, &buf[got], 1) ? 1 : 0;
          if (!kn[got] || buf[got] == 0) {
            ++got;
            break;
          }
        }
        bool trunc = false;
        std::string str = quote_string({buf, got}, {kn, got}, &trunc);
        s += " " + str + (trunc ? "..." : "");
      }
      return s;
    }
    default: return hex(raw);
  }
}

}  // namespace ttd::dbg
