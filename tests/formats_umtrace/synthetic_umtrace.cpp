#include "synthetic_umtrace.h"

#include <doctest/doctest.h>

#include <cstring>

#include "formats/umtrace/testing/x86_register_catalog.h"
#include "temp_dir.h"

namespace ttd::test {

using namespace fmt::umtrace;

namespace {

const X86RegisterCatalog& cat() { return X86RegisterCatalog::instance(); }

SlotValue reg_slot(SlotValue::Group g, const std::string& reg, uint64_t v, bool mode64) {
  auto id = cat().find(reg, mode64);
  REQUIRE_MESSAGE(id, "no register " << reg);
  SlotValue s;
  s.group = g;
  s.reg = reg;
  s.bytes.resize(cat().entry(*id).size);
  std::memcpy(s.bytes.data(), &v, std::min<size_t>(8, s.bytes.size()));
  return s;
}

}  // namespace

SlotValue in_reg(const std::string& reg, uint64_t v, bool mode64) { return reg_slot(SlotValue::Input, reg, v, mode64); }
SlotValue out_before(const std::string& reg, uint64_t v, bool mode64) {
  return reg_slot(SlotValue::OutputBefore, reg, v, mode64);
}
SlotValue after_reg(const std::string& reg, uint64_t v, bool mode64) { return reg_slot(SlotValue::After, reg, v, mode64); }
SlotValue in_mem(uint64_t addr, std::vector<uint8_t> bytes) {
  SlotValue s;
  s.group = SlotValue::Input;
  s.addr = addr;
  s.bytes = std::move(bytes);
  return s;
}
SlotValue after_mem(uint64_t addr, std::vector<uint8_t> bytes) {
  SlotValue s = in_mem(addr, std::move(bytes));
  s.group = SlotValue::After;
  return s;
}

SyntheticUmtrace::SyntheticUmtrace(const std::string& dir, WriterOptions opt) {
  if (opt.xml.empty()) opt.xml = {{"App/ProcessID", "7"}};
  auto w = UmtraceWriter::create(dir, cat().context_map(), opt);
  REQUIRE_MESSAGE(w, why(w));
  w_ = std::move(*w);
}

uint32_t SyntheticUmtrace::thread(uint32_t win_tid, uint64_t tib) { return w_->add_thread(ThreadSpec{win_tid, tib}); }

std::vector<uint8_t> SyntheticUmtrace::dump(const std::vector<std::pair<std::string, uint64_t>>& regs,
                                            bool mode64) const {
  std::vector<uint8_t> d(cat().dump_size(), 0);
  for (const auto& [name, v] : regs) {
    auto id = cat().find(name, mode64);
    REQUIRE_MESSAGE(id, "no register " << name);
    const uint16_t off = cat().dump_offset(*id, mode64);
    REQUIRE(off != 0xffff);
    std::memcpy(d.data() + off, &v, std::min<size_t>(8, cat().entry(*id).size));
  }
  return d;
}

uint64_t SyntheticUmtrace::thread_begin(uint32_t thread, const std::vector<std::pair<std::string, uint64_t>>& regs,
                                        uint8_t flags) {
  auto eid = w_->thread_begin(thread, flags, ContextSpec{dump(regs, flags & kFlag64Bit), {}});
  REQUIRE_MESSAGE(eid, why(eid));
  return *eid;
}

uint64_t SyntheticUmtrace::instruction(uint32_t thread, uint8_t flags, uint64_t address,
                                       const std::vector<SlotValue>& slots, std::vector<uint8_t> code, bool cs64) {
  InstructionSpec ins;
  ins.cs64 = cs64;
  ins.address = address;
  ins.code = std::move(code);
  ins.disasm = "synthetic";
  std::vector<uint8_t> lc;
  DecodedInstructionSpec& d = ins.decoded;
  for (int g = 0; g < 3; ++g) {
    if (g == 1) d.first_out_slot = uint8_t(d.slots.size());
    if (g == 2) d.first_after_slot = uint8_t(d.slots.size());
    for (const SlotValue& s : slots) {
      if (s.group != g) continue;
      LcSlotSpec slot;
      slot.offset = uint16_t(lc.size());
      slot.value_size = uint16_t(s.bytes.size());
      if (s.reg.empty()) {
        slot.reg = slot.common = s.mem_name;
        slot.addr_width = cs64 ? 8 : 4;
        for (int i = 0; i < 8; ++i) lc.push_back(uint8_t(s.addr >> (8 * i)));
      } else {
        slot.reg = *cat().find(s.reg, cs64);
        slot.common = cat().entry(slot.reg).family;
      }
      lc.insert(lc.end(), s.bytes.begin(), s.bytes.end());
      d.slots.push_back(slot);
    }
  }
  d.lc_size = uint16_t(lc.size());
  const uint64_t id = w_->add_instruction(ins);
  auto eid = w_->instruction(thread, flags, id, lc);
  REQUIRE_MESSAGE(eid, why(eid));
  return *eid;
}

void SyntheticUmtrace::finish() {
  auto s = w_->finish();
  REQUIRE_MESSAGE(s, why(s));
}

}  // namespace ttd::test
