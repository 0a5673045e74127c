#include "formats/umtrace/testing/x86_register_catalog.h"

#include <cctype>

namespace ttd::fmt::umtrace {

namespace {

std::string upper(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = char(std::toupper(uint8_t(c)));
  return o;
}
std::string lower(std::string_view s) {
  std::string o(s);
  for (char& c : o) c = char(std::tolower(uint8_t(c)));
  return o;
}

}  // namespace

const X86RegisterCatalog& X86RegisterCatalog::instance() {
  static const X86RegisterCatalog c;
  return c;
}

uint16_t X86RegisterCatalog::add(std::string name, uint16_t family, uint8_t size, uint8_t offset, bool in64,
                                 bool in32, bool pseudo) {
  const uint16_t id = uint16_t(entries_.size());
  entries_.push_back(Entry{std::move(name), family == 0xffff ? id : family, size, offset, in64, in32, pseudo});
  return id;
}

X86RegisterCatalog::X86RegisterCatalog() {
  constexpr uint16_t kSelf = 0xffff;
  add("INVALID", kSelf, 0, 0, false, false, true);

  // Dump owners in dump order, with their gdb names per mode.
  struct Owner {
    uint16_t id64, id32;  // 0xffff: none in that mode
    std::string gdb64, gdb32;
  };
  std::vector<Owner> owners;

  // Legacy general-purpose registers: common name is the 16-bit register.
  struct Legacy {
    const char *r64, *r32, *r16, *lo, *hi;
  };
  const Legacy legacy[] = {{"RAX", "EAX", "AX", "AL", "AH"}, {"RBX", "EBX", "BX", "BL", "BH"},
                           {"RCX", "ECX", "CX", "CL", "CH"}, {"RDX", "EDX", "DX", "DL", "DH"},
                           {"RSI", "ESI", "SI", "SIL", nullptr}, {"RDI", "EDI", "DI", "DIL", nullptr},
                           {"RBP", "EBP", "BP", "BPL", nullptr}, {"RSP", "ESP", "SP", "SPL", nullptr}};
  for (const Legacy& g : legacy) {
    const uint16_t f = add(g.r16, kSelf, 2, 0, true, true);
    const uint16_t r64 = add(g.r64, f, 8, 0, true, false);
    const uint16_t r32 = add(g.r32, f, 4, 0, true, true);
    add(g.lo, f, 1, 0, true, g.hi != nullptr);  // sil/dil/bpl/spl need a REX prefix: 64-bit only
    if (g.hi) add(g.hi, f, 1, 1, true, true);
    owners.push_back({r64, r32, lower(g.r64), lower(g.r32)});
  }
  // R8..R15: common name is the 64-bit register.
  for (int i = 8; i < 16; ++i) {
    const std::string n = "R" + std::to_string(i);
    const uint16_t f = add(n, kSelf, 8, 0, true, false);
    add(n + "D", f, 4, 0, true, false);
    add(n + "W", f, 2, 0, true, false);
    add(n + "B", f, 1, 0, true, false);
    owners.push_back({f, 0xffff, "r" + std::to_string(i), ""});
  }
  {
    const uint16_t ip = add("IP", kSelf, 2, 0, true, true);
    const uint16_t eip = add("EIP", ip, 4, 0, true, true);
    const uint16_t rip = add("RIP", ip, 8, 0, true, false);
    owners.push_back({rip, eip, "rip", "eip"});
    const uint16_t fl = add("FLAGS", kSelf, 2, 0, true, true);
    const uint16_t efl = add("EFLAGS", fl, 4, 0, true, true);
    const uint16_t rfl = add("RFLAGS", fl, 8, 0, true, false);
    owners.push_back({rfl, efl, "eflags", "eflags"});
  }
  for (const char* s : {"CS", "DS", "ES", "FS", "GS", "SS"}) {
    const uint16_t id = add(s, kSelf, 2, 0, true, true);
    owners.push_back({id, id, lower(s), lower(s)});
  }
  owners.push_back({add("FSBASE", kSelf, 8, 0, true, false), 0xffff, "fs_base", ""});
  owners.push_back({add("GSBASE", kSelf, 8, 0, true, false), 0xffff, "gs_base", ""});
  uint16_t st[8];
  for (int i = 0; i < 8; ++i) {
    st[i] = add("ST" + std::to_string(i), kSelf, 10, 0, true, true);
    owners.push_back({st[i], st[i], "st" + std::to_string(i), "st" + std::to_string(i)});
  }
  // Section 11.1: mm7 lies in st0, mm6 in st1, ... (reverse order).
  for (int i = 0; i < 8; ++i) add("MMX" + std::to_string(i), st[7 - i], 8, 0, true, true);
  for (auto [xed, gdb] : {std::pair{"X87CONTROL", "fctrl"}, {"X87STATUS", "fstat"}, {"X87TAG", "ftag"}}) {
    const uint16_t id = add(xed, kSelf, 2, 0, true, true);
    owners.push_back({id, id, gdb, gdb});
  }
  {
    const uint16_t id = add("MXCSR", kSelf, 4, 0, true, true);
    owners.push_back({id, id, "mxcsr", "mxcsr"});
  }
  uint16_t xmm[16];
  for (int i = 0; i < 16; ++i) {
    xmm[i] = add("XMM" + std::to_string(i), kSelf, 16, 0, true, i < 8);
    owners.push_back({xmm[i], i < 8 ? xmm[i] : uint16_t(0xffff), "xmm" + std::to_string(i),
                      i < 8 ? "xmm" + std::to_string(i) : ""});
  }
  // Named so that decoded instructions can mention them; the CPU this
  // catalogue describes has no AVX state in its dumps.
  for (int i = 0; i < 16; ++i) add("YMM" + std::to_string(i), xmm[i], 32, 0, false, false);
  add("STACKPUSH", kSelf, 0, 0, false, false, true);
  add("STACKPOP", kSelf, 0, 0, false, false, true);

  // Largest present register of each family, per mode.
  const size_t n = entries_.size();
  largest64_.assign(n, 0);
  largest32_.assign(n, 0);
  for (bool m64 : {false, true}) {
    auto& out = m64 ? largest64_ : largest32_;
    for (uint16_t i = 0; i < n; ++i) {
      uint16_t best = i;
      for (uint16_t j = 0; j < n; ++j)
        if (entries_[j].family == entries_[i].family && (m64 ? entries_[j].in64 : entries_[j].in32) &&
            (!(m64 ? entries_[best].in64 : entries_[best].in32) || entries_[j].size > entries_[best].size))
          best = j;
      out[i] = best;
    }
  }

  // The dump: owners back to back, one layout for both modes (a 32-bit
  // register sits where its 64-bit family head does).
  map_.regs.resize(n);
  uint16_t at = 0;
  for (const Owner& o : owners) {
    const uint16_t head = o.id64 != 0xffff ? o.id64 : o.id32;
    if (o.id64 != 0xffff) dump64_.push_back({o.id64, at, entries_[o.id64].size, o.gdb64});
    if (o.id32 != 0xffff) dump32_.push_back({o.id32, at, entries_[o.id32].size, o.gdb32});
    at = uint16_t(at + entries_[head].size);
    if (at % 2) ++at;
  }
  map_.dump_size = at;
  for (uint16_t i = 0; i < n; ++i) {
    MapRegisterSpec& r = map_.regs[i];
    const Entry& e = entries_[i];
    r.name = e.name;
    r.common = int16_t(e.family);
    r.largest32 = int16_t(largest32_[i]);
    r.largest64 = int16_t(largest64_[i]);
    if (e.pseudo) continue;
    for (bool m64 : {false, true}) {
      if (!(m64 ? e.in64 : e.in32)) continue;
      for (const DumpRegister& d : m64 ? dump64_ : dump32_) {
        const Entry& owner = entries_[d.id];
        if (owner.family != e.family || e.offset < owner.offset || e.offset + e.size > owner.offset + owner.size) continue;
        (m64 ? r.offset64 : r.offset32) = uint16_t(d.offset + e.offset - owner.offset);
        (m64 ? r.size64 : r.size32) = e.size;
      }
    }
  }
}

std::optional<uint16_t> X86RegisterCatalog::find(std::string_view name, bool mode64) const {
  std::string n = upper(name);
  if (n.size() == 5 && n.compare(0, 3, "ST(") == 0 && n[4] == ')') n = std::string("ST") + n[3];  // Capstone's st(0)
  else if (n.size() == 3 && n.compare(0, 2, "MM") == 0) n = "MMX" + n.substr(2);
  else if (n == "FPSW") n = "X87STATUS";
  else if (n == "FPCW") n = "X87CONTROL";
  else if (n == "RFLAGS" || n == "EFLAGS") n = mode64 ? "RFLAGS" : "EFLAGS";
  for (uint16_t i = 1; i < entries_.size(); ++i)
    if (entries_[i].name == n) return i;
  return std::nullopt;
}

bool X86RegisterCatalog::is_general_purpose(uint16_t id) const {
  static const std::string_view kFamilies[] = {"AX", "BX", "CX", "DX", "SI", "DI", "BP", "SP",
                                               "R8", "R9", "R10", "R11", "R12", "R13", "R14", "R15"};
  const std::string& f = entries_[entries_[id].family].name;
  for (std::string_view k : kFamilies)
    if (f == k) return true;
  return false;
}

std::optional<uint16_t> X86RegisterCatalog::covering(uint16_t family, uint32_t lo, uint32_t hi, bool mode64) const {
  std::optional<uint16_t> best;
  for (uint16_t i = 1; i < entries_.size(); ++i) {
    const Entry& e = entries_[i];
    if (e.family != family || e.pseudo || !present(i, mode64) || e.offset > lo || e.offset + e.size < hi) continue;
    if (!best || e.size < entries_[*best].size) best = i;
  }
  return best;
}

}  // namespace ttd::fmt::umtrace
