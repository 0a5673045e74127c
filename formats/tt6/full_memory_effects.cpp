#include "formats/tt6/full_memory_effects.h"

#include "formats/tt6/ppc_opcode.h"

namespace ttd::fmt::tt6 {

namespace {

// At most: stmw r0 (128 bytes); lswx reaches 127.
constexpr size_t kMaxValue = 128;

struct Value {
  uint8_t bytes[kMaxValue];
  uint32_t size = 0;
  bool known = false;
};

void put32(Value& v, uint32_t x) {
  store_be32(v.bytes, x);
  v.known = true;
}

// n bytes from consecutive registers starting at r (wrapping r31 -> r0),
// high-order byte first: how lmw/stmw and the string instructions lay
// registers out in memory.
void from_gprs(Value& v, const uint32_t gpr[32], uint32_t r, uint32_t n) {
  for (uint32_t i = 0; i < n; ++i) v.bytes[i] = uint8_t(gpr[(r + i / 4) % 32] >> (24 - 8 * (i % 4)));
  v.known = true;
}

// The bytes of vector register n that an access at addr of v.size touches.
void from_vr(Value& v, const PpcUserState& s, uint32_t n, uint32_t addr) {
  if (!s.vr_valid(n)) return;
  uint8_t all[16];
  for (int w = 0; w < 4; ++w) store_be32(all + 4 * w, s.vr[n][w]);
  const uint32_t at = v.size == 16 ? 0 : addr & 15;
  for (uint32_t i = 0; i < v.size; ++i) v.bytes[i] = all[at + i];
  v.known = true;
}

// The value an access of shape s moves between register file `regs` and
// memory, read from the registers (before a store, after a load).
void register_value(Value& v, uint32_t op, const PpcUserState& regs, uint32_t addr) {
  const uint32_t rt = field_rt(op);
  const uint32_t g = regs.gpr[rt];
  const uint32_t m = major_op(op), x = minor_op(op);
  const uint32_t key = m == 31 ? 1000 + x : m;
  switch (key) {
    case 32: case 33: case 36: case 37:                          // lwz[u] stw[u]
    case 1000 + 23: case 1000 + 55: case 1000 + 20:              // lwzx lwzux lwarx
    case 1000 + 151: case 1000 + 183: case 1000 + 150:           // stwx stwux stwcx.
      put32(v, g);
      return;
    case 34: case 35: case 38: case 39:
    case 1000 + 87: case 1000 + 119: case 1000 + 215: case 1000 + 247:
      v.bytes[0] = uint8_t(g);
      v.known = true;
      return;
    case 40: case 41: case 42: case 43: case 44: case 45:
    case 1000 + 279: case 1000 + 311: case 1000 + 343: case 1000 + 375: case 1000 + 407: case 1000 + 439:
      v.bytes[0] = uint8_t(g >> 8);
      v.bytes[1] = uint8_t(g);
      v.known = true;
      return;
    case 1000 + 790: case 1000 + 918:  // lhbrx sthbrx: byte-reversed halfword
      v.bytes[0] = uint8_t(g);
      v.bytes[1] = uint8_t(g >> 8);
      v.known = true;
      return;
    case 1000 + 534: case 1000 + 662:  // lwbrx stwbrx
      store_le32(v.bytes, uint32_t(g));
      v.known = true;
      return;
    case 50: case 51: case 54: case 55: case 1000 + 599: case 1000 + 631: case 1000 + 727: case 1000 + 759:
      store_be64(v.bytes, regs.fpr[rt]);
      v.known = true;
      return;
    case 48: case 49: case 52: case 53: case 1000 + 535: case 1000 + 567: case 1000 + 663: case 1000 + 695: {
      uint32_t single = 0;
      if (single_from_double_bits(regs.fpr[rt], single)) put32(v, single);
      return;
    }
    case 1000 + 983: put32(v, uint32_t(regs.fpr[rt])); return;  // stfiwx: the low word
    case 46: case 47: case 1000 + 597: case 1000 + 725: case 1000 + 533: case 1000 + 661:
      from_gprs(v, regs.gpr, rt, v.size);
      return;
    case 1000 + 103: case 1000 + 359: case 1000 + 231: case 1000 + 487:  // lvx lvxl stvx stvxl
    case 1000 + 7: case 1000 + 39: case 1000 + 71:                      // lvebx lvehx lvewx
    case 1000 + 135: case 1000 + 167: case 1000 + 199:                  // stvebx stvehx stvewx
      from_vr(v, regs, rt, addr);
      return;
    default: return;  // 64-bit forms, eciwx/ecowx: value not told
  }
}

}  // namespace

bool single_from_double_bits(uint64_t d, uint32_t& single) {
  const uint32_t exp = uint32_t(d >> 52) & 0x7FF;
  if (exp > 896 || (d & 0x7FFFFFFFFFFFFFFFull) == 0) {
    single = uint32_t((d >> 32) & 0xC0000000u) | uint32_t((d >> 29) & 0x3FFFFFFFu);
    return true;
  }
  if (exp >= 874) {  // a single-precision denormal: shift the 1.fraction right
    uint64_t frac = (uint64_t(1) << 52) | (d & ((uint64_t(1) << 52) - 1));
    for (int e = int(exp) - 1023; e < -126; ++e) frac >>= 1;
    single = (uint32_t(d >> 63) << 31) | uint32_t((frac >> 29) & 0x7FFFFF);
    return true;
  }
  return false;
}

void emit_full_access(TraceSink& sink, uint64_t pid, uint32_t op, const PpcUserState& before,
                      const PpcUserState* after) {
  const AccessShape& s = access_shape(op);
  if (s.kind == AccessKind::None) return;
  const uint32_t ea = effective_address(op, s, before.gpr);
  const uint64_t addr = access_address(ea, s);
  Value v;
  v.size = access_size(op, s, before.xer);
  switch (s.kind) {
    case AccessKind::Load:
      if (v.size == 0) return;
      if (after) register_value(v, op, *after, uint32_t(addr));
      sink.mem_read(pid, addr, v.size, v.known ? std::span<const uint8_t>(v.bytes, v.size) : std::span<const uint8_t>());
      return;
    case AccessKind::StoreCond:
      // CR0[EQ] after says whether the reservation held and the store happened.
      if (after && (after->cr & 0x20000000u) == 0) return;
      [[fallthrough]];
    case AccessKind::Store:
      if (v.size == 0) return;
      if (!(s.kind == AccessKind::StoreCond && !after)) register_value(v, op, before, uint32_t(addr));
      if (v.known)
        sink.mem_write(pid, addr, std::span<const uint8_t>(v.bytes, v.size));
      else
        sink.mem_unknown(pid, addr, v.size);
      return;
    case AccessKind::CacheZero: sink.mem_write(pid, addr, kZeroCacheBlock); return;
    case AccessKind::CacheUndef: sink.mem_unknown(pid, addr, kCacheBlock); return;
    case AccessKind::CacheTouch: sink.attr("cache_ea", uint64_t(ea)); return;
    case AccessKind::Stream:
      sink.attr("dst_ea", uint64_t(ea));
      sink.attr("dst_control", uint64_t(before.gpr[field_rb(op)]));
      return;
    case AccessKind::None: return;
  }
}

}  // namespace ttd::fmt::tt6
