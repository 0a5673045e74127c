// target.xml for every arch: well-formed XML, every register present with
// its regnum/bitsize/type, and every non-predefined type defined inside the
// feature that uses it (gdb resolves types per feature). Acceptance by the
// real gdb/lldb is checked by xml_accept_check.py, not here.
#include <doctest/doctest.h>

#include <map>
#include <set>
#include <string>
#include <vector>

#include "state/target_xml.h"

using namespace ttd;

namespace {

struct Element {
  std::string name;
  std::map<std::string, std::string> attrs;
  std::string text;
  std::vector<Element> children;
};

// Just enough XML for what target_xml emits: prolog, DOCTYPE, elements,
// attributes in double quotes, text. Fails the test on anything malformed.
class MiniXml {
 public:
  explicit MiniXml(const std::string& s) : s_(s) {}
  Element parse() {
    skip_ws();
    REQUIRE(s_.compare(i_, 5, "<?xml") == 0);
    i_ = s_.find("?>", i_);
    REQUIRE(i_ != std::string::npos);
    i_ += 2;
    skip_ws();
    REQUIRE(s_.compare(i_, 9, "<!DOCTYPE") == 0);
    i_ = s_.find('>', i_) + 1;
    skip_ws();
    Element root = element();
    skip_ws();
    CHECK(i_ == s_.size());
    return root;
  }

 private:
  void skip_ws() {
    while (i_ < s_.size() && isspace(static_cast<unsigned char>(s_[i_]))) ++i_;
  }
  std::string ident() {
    size_t b = i_;
    while (i_ < s_.size() && (isalnum(static_cast<unsigned char>(s_[i_])) || s_[i_] == '_' ||
                              s_[i_] == '-' || s_[i_] == ':' || s_[i_] == '.'))
      ++i_;
    REQUIRE(i_ > b);
    return s_.substr(b, i_ - b);
  }
  Element element() {
    REQUIRE(s_[i_] == '<');
    ++i_;
    Element e;
    e.name = ident();
    for (;;) {
      skip_ws();
      REQUIRE(i_ < s_.size());
      if (s_.compare(i_, 2, "/>") == 0) {
        i_ += 2;
        return e;
      }
      if (s_[i_] == '>') {
        ++i_;
        break;
      }
      std::string k = ident();
      REQUIRE(s_[i_] == '=');
      REQUIRE(s_[i_ + 1] == '"');
      size_t end = s_.find('"', i_ + 2);
      REQUIRE(end != std::string::npos);
      std::string v = s_.substr(i_ + 2, end - i_ - 2);
      CHECK(v.find('<') == std::string::npos);
      CHECK(e.attrs.emplace(k, v).second);  // no duplicate attributes
      i_ = end + 1;
    }
    for (;;) {
      REQUIRE(i_ < s_.size());
      if (s_.compare(i_, 2, "</") == 0) {
        i_ += 2;
        std::string close = ident();
        CHECK(close == e.name);
        REQUIRE(s_[i_] == '>');
        ++i_;
        return e;
      }
      if (s_[i_] == '<') {
        e.children.push_back(element());
      } else {
        CHECK(s_[i_] != '&');  // no entities expected in our output
        e.text += s_[i_++];
      }
    }
  }
  const std::string& s_;
  size_t i_ = 0;
};

// gdb's predefined target-description types (gdb/target-descriptions.c).
const std::set<std::string> kPredefined = {
    "int",      "bool",     "int8",     "int16",       "int24",      "int32",    "int64",
    "int128",   "uint8",    "uint16",   "uint24",      "uint32",     "uint64",   "uint128",
    "code_ptr", "data_ptr", "ieee_half", "ieee_single", "ieee_double", "i387_ext", "bfloat16",
    "arm_fpa_ext", "float"};

}  // namespace

TEST_CASE("target.xml is well-formed and complete for every arch") {
  for (ArchId id : all_arches()) {
    const ArchDesc& a = arch_desc(id);
    CAPTURE(a.name);
    std::string xml = target_xml(a);
    Element root = MiniXml(xml).parse();
    CHECK(root.name == "target");
    CHECK(root.attrs["version"] == "1.0");
    std::string arch_text, osabi;
    std::map<std::string, const Element*> regs;  // name -> <reg>
    std::set<std::string> features_seen;
    for (const Element& c : root.children) {
      if (c.name == "architecture") arch_text = c.text;
      else if (c.name == "osabi") osabi = c.text;
      else {
        REQUIRE(c.name == "feature");
        CHECK(features_seen.insert(c.attrs.at("name")).second);  // each feature once
        std::set<std::string> defined;
        for (const Element& t : c.children) {
          if (t.name == "reg") {
            CHECK(regs.emplace(t.attrs.at("name"), &t).second);
            std::string type = t.attrs.count("type") ? t.attrs.at("type") : "int";
            CAPTURE(type);
            CHECK((kPredefined.count(type) || defined.count(type)));
          } else {
            // Types come before the registers that use them, and the
            // fields of a composite only name types known at that point.
            CHECK((t.name == "vector" || t.name == "union" || t.name == "flags" || t.name == "struct"));
            for (const Element& f : t.children) {
              CHECK(f.name == "field");
              if (f.attrs.count("type"))
                CHECK((kPredefined.count(f.attrs.at("type")) || defined.count(f.attrs.at("type"))));
            }
            if (t.name == "vector")
              CHECK((kPredefined.count(t.attrs.at("type")) || defined.count(t.attrs.at("type"))));
            CHECK(defined.insert(t.attrs.at("id")).second);
          }
        }
      }
    }
    CHECK(arch_text == a.gdb_arch);
    CHECK(osabi == "GNU/Linux");
    CHECK(regs.size() == a.regs.size());
    for (const RegisterDesc& r : a.regs) {
      CAPTURE(r.name);
      REQUIRE(regs.count(r.name));
      const Element& e = *regs[r.name];
      CHECK(e.attrs.at("bitsize") == std::to_string(r.bits));
      CHECK(e.attrs.at("regnum") == std::to_string(r.gdb_regnum));
      CHECK(e.attrs.at("type") == r.type);
    }
    // lldb's "generic" hints name exactly one pc and one sp.
    CHECK(regs[a.pc().name]->attrs.at("generic") == "pc");
    CHECK(regs[a.sp().name]->attrs.at("generic") == "sp");
  }
}

TEST_CASE("target.xml carries the regnums gdb requires") {
  auto regnum_of = [](ArchId id, const std::string& reg) {
    std::string xml = target_xml(arch_desc(id));
    size_t p = xml.find("<reg name=\"" + reg + "\"");
    REQUIRE(p != std::string::npos);
    size_t q = xml.find("regnum=\"", p);
    return std::stoi(xml.substr(q + 8));
  };
  CHECK(regnum_of(ArchId::X86_64, "rip") == 16);
  CHECK(regnum_of(ArchId::X86_64, "xmm0") == 40);
  CHECK(regnum_of(ArchId::X86_64, "orig_rax") == 57);
  CHECK(regnum_of(ArchId::I386, "eip") == 8);
  CHECK(regnum_of(ArchId::AArch64, "pc") == 32);
  CHECK(regnum_of(ArchId::AArch64, "v0") == 34);
  CHECK(regnum_of(ArchId::Arm, "cpsr") == 25);
  CHECK(regnum_of(ArchId::Mips, "status") == 32);
  CHECK(regnum_of(ArchId::Mips, "lo") == 33);
  CHECK(regnum_of(ArchId::Mips, "hi") == 34);
  CHECK(regnum_of(ArchId::Mips, "badvaddr") == 35);
  CHECK(regnum_of(ArchId::Mips, "cause") == 36);
  CHECK(regnum_of(ArchId::Mips, "pc") == 37);
  CHECK(regnum_of(ArchId::Mips, "f0") == 38);
  CHECK(regnum_of(ArchId::Ppc32, "pc") == 64);
  CHECK(regnum_of(ArchId::Ppc32, "f0") == 32);
  CHECK(regnum_of(ArchId::Ppc32, "fpscr") == 70);
}

TEST_CASE("each arch names the features gdb requires") {
  auto has = [](ArchId id, const std::string& feature) {
    return target_xml(arch_desc(id)).find("<feature name=\"" + feature + "\">") != std::string::npos;
  };
  CHECK(has(ArchId::X86_64, "org.gnu.gdb.i386.core"));
  CHECK(has(ArchId::X86_64, "org.gnu.gdb.i386.sse"));
  CHECK(has(ArchId::X86_64, "org.gnu.gdb.i386.linux"));
  CHECK(has(ArchId::X86_64, "org.gnu.gdb.i386.segments"));
  CHECK(has(ArchId::I386, "org.gnu.gdb.i386.core"));
  CHECK(has(ArchId::AArch64, "org.gnu.gdb.aarch64.core"));
  CHECK(has(ArchId::AArch64, "org.gnu.gdb.aarch64.fpu"));
  CHECK(has(ArchId::Arm, "org.gnu.gdb.arm.core"));
  CHECK(has(ArchId::Mips, "org.gnu.gdb.mips.cpu"));
  CHECK(has(ArchId::Mips, "org.gnu.gdb.mips.cp0"));
  CHECK(has(ArchId::Mips, "org.gnu.gdb.mips.fpu"));
  CHECK(has(ArchId::Ppc32, "org.gnu.gdb.power.core"));
  CHECK(has(ArchId::Ppc32, "org.gnu.gdb.power.fpu"));
  CHECK(has(ArchId::Ppc32, "org.gnu.gdb.power.altivec"));
}

TEST_CASE("x86 and AltiVec each get their own vec128 shape") {
  std::string x86 = target_xml(arch_desc(ArchId::X86_64));
  std::string ppc = target_xml(arch_desc(ArchId::Ppc32));
  CHECK(x86.find("<field name=\"v2_double\" type=\"v2d\"/>") != std::string::npos);
  CHECK(ppc.find("<union id=\"vec128\">") != std::string::npos);
  CHECK(ppc.find("v2_double") == std::string::npos);
  CHECK(x86.find("<flags id=\"i386_eflags\" size=\"4\">") != std::string::npos);
  CHECK(x86.find("<flags id=\"i386_mxcsr\" size=\"4\">") != std::string::npos);
}

TEST_CASE("target_xml works for a hand-made description") {
  ArchDesc a;
  a.id = ArchId::X86_64;
  a.gdb_arch = "i386:x86-64";
  RegisterDesc r;
  r.name = "a<b";
  r.bits = 64;
  r.type = "int64";
  r.feature = "org.example.test";
  a.regs.push_back(r);
  std::string xml = target_xml(a);
  CHECK(xml.find("name=\"a&lt;b\"") != std::string::npos);  // escaped
  CHECK(xml.find("<feature name=\"org.example.test\">") != std::string::npos);
}
