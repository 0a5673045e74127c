// Builds target.xml from an ArchDesc. Register lines come straight from the
// table; the composite types (flags, vectors, unions) the registers name
// are defined here, inside each feature that uses them, because gdb looks a
// type up in the register's own feature (then among its predefined types),
// not across features.
#include "state/target_xml.h"

#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace ttd {

namespace {

struct TypeDef {
  std::string_view key;   // type name, or "feature:type" when a feature needs its own shape
  std::vector<std::string_view> deps;  // types that must be defined first
  std::string_view xml;
};

// Field layouts follow gdb's own feature files so that gdb prints the same
// breakdowns ("[ ZF PF ]") it would against gdbserver.
const std::vector<TypeDef>& type_defs() {
  static const std::vector<TypeDef> defs = {
      {"i386_eflags", {}, R"(<flags id="i386_eflags" size="4">
<field name="CF" start="0" end="0"/><field name="" start="1" end="1"/>
<field name="PF" start="2" end="2"/><field name="AF" start="4" end="4"/>
<field name="ZF" start="6" end="6"/><field name="SF" start="7" end="7"/>
<field name="TF" start="8" end="8"/><field name="IF" start="9" end="9"/>
<field name="DF" start="10" end="10"/><field name="OF" start="11" end="11"/>
<field name="NT" start="14" end="14"/><field name="RF" start="16" end="16"/>
<field name="VM" start="17" end="17"/><field name="AC" start="18" end="18"/>
<field name="VIF" start="19" end="19"/><field name="VIP" start="20" end="20"/>
<field name="ID" start="21" end="21"/>
</flags>
)"},
      {"i386_mxcsr", {}, R"(<flags id="i386_mxcsr" size="4">
<field name="IE" start="0" end="0"/><field name="DE" start="1" end="1"/>
<field name="ZE" start="2" end="2"/><field name="OE" start="3" end="3"/>
<field name="UE" start="4" end="4"/><field name="PE" start="5" end="5"/>
<field name="DAZ" start="6" end="6"/><field name="IM" start="7" end="7"/>
<field name="DM" start="8" end="8"/><field name="ZM" start="9" end="9"/>
<field name="OM" start="10" end="10"/><field name="UM" start="11" end="11"/>
<field name="PM" start="12" end="12"/><field name="FZ" start="15" end="15"/>
</flags>
)"},
      // x86 SSE register view.
      {"vec128", {}, R"(<vector id="v4f" type="ieee_single" count="4"/>
<vector id="v2d" type="ieee_double" count="2"/>
<vector id="v16i8" type="int8" count="16"/>
<vector id="v8i16" type="int16" count="8"/>
<vector id="v4i32" type="int32" count="4"/>
<vector id="v2i64" type="int64" count="2"/>
<union id="vec128">
<field name="v4_float" type="v4f"/><field name="v2_double" type="v2d"/>
<field name="v16_int8" type="v16i8"/><field name="v8_int16" type="v8i16"/>
<field name="v4_int32" type="v4i32"/><field name="v2_int64" type="v2i64"/>
<field name="uint128" type="uint128"/>
</union>
)"},
      // AltiVec's view of a 128-bit register (no doubles, no int64 lanes).
      {"org.gnu.gdb.power.altivec:vec128", {}, R"(<vector id="v4f" type="ieee_single" count="4"/>
<vector id="v4i32" type="int32" count="4"/>
<vector id="v8i16" type="int16" count="8"/>
<vector id="v16i8" type="int8" count="16"/>
<union id="vec128">
<field name="uint128" type="uint128"/><field name="v4_float" type="v4f"/>
<field name="v4_int32" type="v4i32"/><field name="v8_int16" type="v8i16"/>
<field name="v16_int8" type="v16i8"/>
</union>
)"},
      {"cpsr_flags", {}, R"(<flags id="cpsr_flags" size="4">
<field name="SP" start="0" end="0"/><field name="EL" start="2" end="3"/>
<field name="nRW" start="4" end="4"/><field name="F" start="6" end="6"/>
<field name="I" start="7" end="7"/><field name="A" start="8" end="8"/>
<field name="D" start="9" end="9"/><field name="BTYPE" start="10" end="11"/>
<field name="SSBS" start="12" end="12"/><field name="IL" start="20" end="20"/>
<field name="SS" start="21" end="21"/><field name="PAN" start="22" end="22"/>
<field name="UAO" start="23" end="23"/><field name="DIT" start="24" end="24"/>
<field name="TCO" start="25" end="25"/><field name="V" start="28" end="28"/>
<field name="C" start="29" end="29"/><field name="Z" start="30" end="30"/>
<field name="N" start="31" end="31"/>
</flags>
)"},
      // AArch64 V register: the d/s/h/b/q lane views gdb offers as $v0.d.f etc.
      {"aarch64v", {}, R"(<vector id="v2d" type="ieee_double" count="2"/>
<vector id="v2u" type="uint64" count="2"/>
<vector id="v2i" type="int64" count="2"/>
<vector id="v4f" type="ieee_single" count="4"/>
<vector id="v4u" type="uint32" count="4"/>
<vector id="v4i" type="int32" count="4"/>
<vector id="v8f" type="ieee_half" count="8"/>
<vector id="v8u" type="uint16" count="8"/>
<vector id="v8i" type="int16" count="8"/>
<vector id="v16u" type="uint8" count="16"/>
<vector id="v16i" type="int8" count="16"/>
<vector id="v1u" type="uint128" count="1"/>
<vector id="v1i" type="int128" count="1"/>
<union id="vnd"><field name="f" type="v2d"/><field name="u" type="v2u"/><field name="s" type="v2i"/></union>
<union id="vns"><field name="f" type="v4f"/><field name="u" type="v4u"/><field name="s" type="v4i"/></union>
<union id="vnh"><field name="f" type="v8f"/><field name="u" type="v8u"/><field name="s" type="v8i"/></union>
<union id="vnb"><field name="u" type="v16u"/><field name="s" type="v16i"/></union>
<union id="vnq"><field name="u" type="v1u"/><field name="s" type="v1i"/></union>
<union id="aarch64v">
<field name="d" type="vnd"/><field name="s" type="vns"/><field name="h" type="vnh"/>
<field name="b" type="vnb"/><field name="q" type="vnq"/>
</union>
)"},
      {"fpsr_flags", {}, R"(<flags id="fpsr_flags" size="4">
<field name="IOC" start="0" end="0"/><field name="DZC" start="1" end="1"/>
<field name="OFC" start="2" end="2"/><field name="UFC" start="3" end="3"/>
<field name="IXC" start="4" end="4"/><field name="IDC" start="7" end="7"/>
<field name="QC" start="27" end="27"/><field name="V" start="28" end="28"/>
<field name="C" start="29" end="29"/><field name="Z" start="30" end="30"/>
<field name="N" start="31" end="31"/>
</flags>
)"},
      {"fpcr_flags", {}, R"(<flags id="fpcr_flags" size="4">
<field name="FIZ" start="0" end="0"/><field name="AH" start="1" end="1"/>
<field name="NEP" start="2" end="2"/><field name="IOE" start="8" end="8"/>
<field name="DZE" start="9" end="9"/><field name="OFE" start="10" end="10"/>
<field name="UFE" start="11" end="11"/><field name="IXE" start="12" end="12"/>
<field name="IDE" start="15" end="15"/><field name="FZ16" start="19" end="19"/>
<field name="RMode" start="22" end="23"/><field name="FZ" start="24" end="24"/>
<field name="DN" start="25" end="25"/><field name="AHP" start="26" end="26"/>
</flags>
)"},
  };
  return defs;
}

const TypeDef* find_def(std::string_view feature, std::string_view type) {
  std::string scoped = std::string(feature) + ":" + std::string(type);
  for (const TypeDef& d : type_defs())
    if (d.key == scoped) return &d;
  for (const TypeDef& d : type_defs())
    if (d.key == type) return &d;
  return nullptr;  // a gdb predefined type (int, int64, code_ptr, ieee_double, ...)
}

void emit_type(std::string& out, std::set<std::string_view>& done, std::string_view feature,
               std::string_view type) {
  const TypeDef* d = find_def(feature, type);
  if (!d || !done.insert(d->key).second) return;
  for (std::string_view dep : d->deps) emit_type(out, done, feature, dep);
  out += d->xml;
}

std::string escape(std::string_view s) {
  std::string out;
  for (char c : s) {
    switch (c) {
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '&': out += "&amp;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

// lldb's extension attribute "generic" tells it which register is the pc,
// sp, fp, return address and flags without relying on its per-arch name
// guessing; gdb ignores attributes it does not know.
std::string generic_of(const ArchDesc& arch, uint16_t index) {
  if (index == arch.pc_index) return "pc";
  if (index == arch.sp_index) return "sp";
  static const char* const roles[] = {"fp", "ra", "flags"};
  for (const char* role : roles) {
    auto found = arch.find(role);
    if (found && *found == index) return role;
  }
  return {};
}

}  // namespace

std::string target_xml(const ArchDesc& arch) {
  std::string out;
  out.reserve(16384);
  out += "<?xml version=\"1.0\"?>\n<!DOCTYPE target SYSTEM \"gdb-target.dtd\">\n";
  out += "<target version=\"1.0\">\n";
  out += "<architecture>" + escape(arch.gdb_arch) + "</architecture>\n";
  out += "<osabi>GNU/Linux</osabi>\n";

  // Features in order of first appearance; a feature's registers need not be
  // contiguous in regnum order (mips cp0 interleaves with cpu), so every
  // register carries an explicit regnum.
  std::vector<std::string> features;
  for (const RegisterDesc& r : arch.regs) {
    bool seen = false;
    for (const auto& f : features) seen |= (f == r.feature);
    if (!seen) features.push_back(r.feature);
  }
  for (const std::string& f : features) {
    out += "<feature name=\"" + escape(f) + "\">\n";
    std::set<std::string_view> done;
    for (const RegisterDesc& r : arch.regs)
      if (r.feature == f) emit_type(out, done, f, r.type);
    for (uint16_t i = 0; i < arch.regs.size(); ++i) {
      const RegisterDesc& r = arch.regs[i];
      if (r.feature != f) continue;
      out += "<reg name=\"" + escape(r.name) + "\" bitsize=\"" + std::to_string(r.bits) +
             "\" regnum=\"" + std::to_string(r.gdb_regnum) + "\"";
      if (!r.type.empty()) out += " type=\"" + escape(r.type) + "\"";
      if (!r.group.empty()) out += " group=\"" + escape(r.group) + "\"";
      std::string g = generic_of(arch, i);
      if (!g.empty()) out += " generic=\"" + g + "\"";
      out += "/>\n";
    }
    out += "</feature>\n";
  }
  out += "</target>\n";
  return out;
}

}  // namespace ttd
