#include "tt6_test_support.h"

#include "formats/tt6/full_reader.h"
#include "formats/tt6/ppc_opcode.h"
#include "formats/tt6/tt6_reader.h"
#include "temp_file.h"

namespace ttd::test {

using namespace fmt::tt6;

const GuestRun& guest_run() {
  static const GuestRun run = run_ppc_guest();
  return run;
}

std::unique_ptr<ReadOutcome> read_bytes(const std::vector<uint8_t>& bytes, Variant v, const std::string& suffix) {
  auto out = std::make_unique<ReadOutcome>();
  const std::string ext = !suffix.empty() ? suffix : v == Variant::Tt6 ? ".tt6" : v == Variant::Tt6e ? ".tt6e" : ".full";
  TempFile file(bytes, ext);
  out->path = file.path();
  if (v == Variant::Full) {
    auto r = FullReader::open(file.path());
    out->status = r ? r.value()->read(out->sink, nullptr) : Status(r.error());
  } else {
    auto r = Tt6Reader::open(file.path(), v);
    out->status = r ? r.value()->read(out->sink, nullptr) : Status(r.error());
  }
  return out;
}

namespace {
// (Appending rather than "r" + to_string(i) keeps GCC 12's -Wrestrict quiet.)
std::string numbered(const char* prefix, int i) {
  std::string s(prefix);
  s += std::to_string(i);
  return s;
}
}  // namespace

RegisterValues expected_registers(const PpcUserState& s) {
  const ArchDesc& arch = arch_desc(ArchId::Ppc32);
  RegisterValues out(arch.regs.size());
  auto set32 = [&](const std::string& name, uint32_t v) {
    std::vector<uint8_t> b(4);
    store_be32(b.data(), v);
    out[*arch.find(name)] = b;
  };
  set32("msr", s.srr1);
  for (int i = 0; i < 32; ++i) set32(numbered("r", i), s.gpr[i]);
  set32("cr", s.cr);
  set32("xer", s.xer);
  set32("lr", s.lr);
  set32("ctr", s.ctr);
  set32("vrsave", s.vrsave);
  set32("fpscr", s.fpscr);
  set32("vscr", s.vscr);
  for (int i = 0; i < 32; ++i) {
    std::vector<uint8_t> b(8);
    store_be64(b.data(), s.fpr[i]);
    out[*arch.find(numbered("f", i))] = b;
    if (!s.vr_valid(unsigned(i))) continue;
    std::vector<uint8_t> v(16);
    for (int w = 0; w < 4; ++w) store_be32(v.data() + 4 * w, s.vr[i][w]);
    out[*arch.find(numbered("vr", i))] = v;
  }
  return out;
}

bool hooked_read_is_probe(uint32_t opcode) {
  switch (access_shape(opcode).kind) {
    case AccessKind::CacheTouch:
    case AccessKind::CacheZero:
    case AccessKind::CacheUndef:
    case AccessKind::StoreCond: return true;
    default: return false;
  }
}

std::vector<uint8_t> be_words(std::initializer_list<uint32_t> words) {
  std::vector<uint8_t> out;
  for (uint32_t w : words) out.insert(out.end(), {uint8_t(w >> 24), uint8_t(w >> 16), uint8_t(w >> 8), uint8_t(w)});
  return out;
}

}  // namespace ttd::test
