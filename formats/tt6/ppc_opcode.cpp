#include "formats/tt6/ppc_opcode.h"

#include <initializer_list>

namespace ttd::fmt::tt6 {

namespace {

// The spec's tt6_isMemory list (shared by TT6 and TT6E); majors first.
constexpr uint8_t kMemoryMajors[] = {34, 35, 50, 51, 48, 49, 42, 43, 40, 41, 46, 32, 33, 38, 39, 54,
                                     55, 52, 53, 44, 45, 47, 36, 37, 58, 62};
constexpr uint16_t kMemoryMinors31[] = {597, 119, 87,  631, 599, 567, 535, 375, 343, 790, 311, 279, 20,
                                        534, 55,  23,  7,   39,  71,  103, 359, 310, 438, 247, 215, 759,
                                        727, 983, 695, 663, 918, 439, 407, 725, 662, 150, 183, 151, 135,
                                        167, 199, 231, 487, 21,  53,  84,  341, 373, 149, 181, 214};
// TT6E adds the DCBx (and icbi) cache instructions.
constexpr uint16_t kDcbxMinors31[] = {758, 86, 470, 54, 278, 246, 1014, 982};
constexpr uint16_t kExtendedMinors31[] = {533, 661, 342, 374};
constexpr uint16_t kFlowMinors19[] = {528, 16, 50, 18};

}  // namespace

const char* variant_format_name(Variant v) {
  switch (v) {
    case Variant::Tt6: return "tt6";
    case Variant::Tt6e: return "tt6e";
    case Variant::Full: return "tt6-full";
  }
  return "tt6";
}

OpcodeClassifier::OpcodeClassifier(bool tt6e) {
  for (auto& c : major_) c = RecordClass::Compute;
  for (auto& c : minor31_) c = RecordClass::Compute;
  for (auto& c : minor19_) c = RecordClass::Compute;
  major_[0] = RecordClass::Escape;
  major_[16] = major_[17] = major_[18] = RecordClass::FlowAltering;  // bc, sc, b
  for (uint16_t m : kFlowMinors19) minor19_[m] = RecordClass::FlowAltering;
  for (uint8_t m : kMemoryMajors) major_[m] = RecordClass::Memory;
  for (uint16_t m : kMemoryMinors31) minor31_[m] = RecordClass::Memory;
  if (tt6e)
    for (uint16_t m : kDcbxMinors31) minor31_[m] = RecordClass::Memory;
  for (uint16_t m : kExtendedMinors31) minor31_[m] = RecordClass::MemoryExtended;
}

const OpcodeClassifier& classifier(Variant v) {
  static const OpcodeClassifier tt6(false), tt6e(true);
  return v == Variant::Tt6 ? tt6 : tt6e;
}

namespace {

// The shape of one opcode; only the major and (for 31) minor fields matter.
AccessShape compute_access_shape(uint32_t op) {
  auto shape = [](AccessKind k, uint8_t size, EaForm f, uint8_t align = 1) {
    AccessShape s;
    s.kind = k;
    s.size = size;
    s.form = f;
    s.align = align;
    return s;
  };
  using K = AccessKind;
  const uint32_t m = major_op(op);
  switch (m) {
    case 32: case 33: return shape(K::Load, 4, EaForm::D);   // lwz, lwzu
    case 34: case 35: return shape(K::Load, 1, EaForm::D);   // lbz, lbzu
    case 40: case 41: return shape(K::Load, 2, EaForm::D);   // lhz, lhzu
    case 42: case 43: return shape(K::Load, 2, EaForm::D);   // lha, lhau
    case 48: case 49: return shape(K::Load, 4, EaForm::D);   // lfs, lfsu
    case 50: case 51: return shape(K::Load, 8, EaForm::D);   // lfd, lfdu
    case 36: case 37: return shape(K::Store, 4, EaForm::D);  // stw, stwu
    case 38: case 39: return shape(K::Store, 1, EaForm::D);  // stb, stbu
    case 44: case 45: return shape(K::Store, 2, EaForm::D);  // sth, sthu
    case 52: case 53: return shape(K::Store, 4, EaForm::D);  // stfs, stfsu
    case 54: case 55: return shape(K::Store, 8, EaForm::D);  // stfd, stfdu
    case 46: case 47: {                                      // lmw, stmw
      AccessShape s = shape(m == 46 ? K::Load : K::Store, 0, EaForm::D);
      s.multiple = true;
      return s;
    }
    case 58: return shape(K::Load, 8, EaForm::DS);   // ld, ldu (lwa: see access_size)
    case 62: return shape(K::Store, 8, EaForm::DS);                     // std, stdu
    case 31: break;
    default: return {};
  }
  switch (minor_op(op)) {
    case 87: case 119: return shape(K::Load, 1, EaForm::X);               // lbzx, lbzux
    case 279: case 311: case 343: case 375: case 790: return shape(K::Load, 2, EaForm::X);
    case 23: case 55: case 20: case 534: case 535: case 567: case 310: case 341: case 373:
      return shape(K::Load, 4, EaForm::X);  // lwzx lwzux lwarx lwbrx lfsx lfsux eciwx lwax lwaux
    case 599: case 631: case 21: case 53: case 84: return shape(K::Load, 8, EaForm::X);
    case 7: return shape(K::Load, 1, EaForm::X);         // lvebx
    case 39: return shape(K::Load, 2, EaForm::X, 2);     // lvehx
    case 71: return shape(K::Load, 4, EaForm::X, 4);     // lvewx
    case 103: case 359: return shape(K::Load, 16, EaForm::X, 16);  // lvx, lvxl
    case 215: case 247: return shape(K::Store, 1, EaForm::X);      // stbx, stbux
    case 407: case 439: case 918: return shape(K::Store, 2, EaForm::X);
    case 151: case 183: case 662: case 663: case 695: case 983: case 438:
      return shape(K::Store, 4, EaForm::X);  // stwx stwux stwbrx stfsx stfsux stfiwx ecowx
    case 727: case 759: case 149: case 181: return shape(K::Store, 8, EaForm::X);
    case 150: return shape(K::StoreCond, 4, EaForm::X);  // stwcx.
    case 214: return shape(K::StoreCond, 8, EaForm::X);  // stdcx.
    case 135: return shape(K::Store, 1, EaForm::X);      // stvebx
    case 167: return shape(K::Store, 2, EaForm::X, 2);   // stvehx
    case 199: return shape(K::Store, 4, EaForm::X, 4);   // stvewx
    case 231: case 487: return shape(K::Store, 16, EaForm::X, 16);  // stvx, stvxl
    case 597: case 725: {                                           // lswi, stswi
      AccessShape s = shape(minor_op(op) == 597 ? K::Load : K::Store, 0, EaForm::RaOnly);
      s.string_immediate = true;
      return s;
    }
    case 533: case 661: {  // lswx, stswx
      AccessShape s = shape(minor_op(op) == 533 ? K::Load : K::Store, 0, EaForm::X);
      s.string_indexed = true;
      return s;
    }
    case 1014: return shape(K::CacheZero, kCacheBlock, EaForm::X, kCacheBlock);  // dcbz
    case 758: case 470: return shape(K::CacheUndef, kCacheBlock, EaForm::X, kCacheBlock);  // dcba, dcbi
    case 86: case 54: case 278: case 246: case 982:
      return shape(K::CacheTouch, kCacheBlock, EaForm::X, kCacheBlock);  // dcbf dcbst dcbt dcbtst icbi
    case 342: case 374: return shape(K::Stream, 0, EaForm::RaOnly);      // dst, dstst
    default: return {};
  }
}

}  // namespace

AccessTable::AccessTable() {
  for (uint32_t m = 0; m < 64; ++m) major_[m] = compute_access_shape(m << 26);
  for (uint32_t x = 0; x < 1024; ++x) minor31_[x] = compute_access_shape((31u << 26) | (x << 1));
}

const AccessTable& access_table() {
  static const AccessTable table;
  return table;
}

uint32_t effective_address(uint32_t op, const AccessShape& s, const uint32_t gpr[32]) {
  const uint32_t ra = field_ra(op);
  const uint32_t base = ra == 0 ? 0 : gpr[ra];
  switch (s.form) {
    case EaForm::D: return base + uint32_t(int32_t(int16_t(op & 0xFFFFu)));
    case EaForm::DS: return base + uint32_t(int32_t(int16_t(op & 0xFFFCu)));
    case EaForm::X: return base + gpr[field_rb(op)];
    case EaForm::RaOnly: return s.kind == AccessKind::Stream ? gpr[ra] : base;
    case EaForm::None: break;
  }
  return 0;
}

}  // namespace ttd::fmt::tt6
