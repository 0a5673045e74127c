#include "formats/umtrace/testing/table_encoder.h"

#include <algorithm>

namespace ttd::fmt::umtrace {

namespace {

void put16(std::vector<uint8_t>& b, size_t at, uint16_t v) { store_le16(b.data() + at, v); }
void put32(std::vector<uint8_t>& b, size_t at, uint32_t v) { store_le32(b.data() + at, v); }
void put64(std::vector<uint8_t>& b, size_t at, uint64_t v) { store_le64(b.data() + at, v); }

// Common header of a fixed-size table whose rows follow it directly.
std::vector<uint8_t> itable(uint32_t record_version, uint64_t rows, uint32_t row_size, bool has_extra) {
  using L = ItableHeaderLayout;
  const uint32_t header = has_extra ? L::kSizeWithExtra : L::kSize;
  std::vector<uint8_t> b(header + rows * row_size, 0);
  put32(b, L::kHeaderVer, 0);
  put32(b, L::kRecordVer, record_version);
  put64(b, L::kRowCount, rows);
  put64(b, L::kRowSize, row_size);
  put64(b, L::kTableFP, header);
  return b;
}

void set_extra(std::vector<uint8_t>& b, uint64_t extra_fp) {
  put64(b, ItableHeaderLayout::kExtraFP, extra_fp);
  put64(b, ItableHeaderLayout::kExtraSize, b.size() - extra_fp);
}

// ASCII and UTF-8 to UTF-16 code units (enough for file names).
std::vector<uint16_t> utf16(const std::string& s) {
  std::vector<uint16_t> out;
  for (size_t i = 0; i < s.size();) {
    uint8_t c = uint8_t(s[i]);
    uint32_t cp = c;
    size_t n = 1;
    if (c >= 0xf0) cp = c & 0x07, n = 4;
    else if (c >= 0xe0) cp = c & 0x0f, n = 3;
    else if (c >= 0xc0) cp = c & 0x1f, n = 2;
    for (size_t k = 1; k < n && i + k < s.size(); ++k) cp = (cp << 6) | (uint8_t(s[i + k]) & 0x3f);
    i += n;
    if (cp >= 0x10000) {
      cp -= 0x10000;
      out.push_back(uint16_t(0xd800 + (cp >> 10)));
      out.push_back(uint16_t(0xdc00 + (cp & 0x3ff)));
    } else {
      out.push_back(uint16_t(cp));
    }
  }
  return out;
}

uint64_t append_ustr(std::vector<uint8_t>& b, const std::string& s) {
  const uint64_t at = b.size();
  std::vector<uint16_t> u = utf16(s);
  b.resize(at + 2 + 2 * u.size() + 2, 0);
  put16(b, at, uint16_t(u.size()));
  for (size_t i = 0; i < u.size(); ++i) put16(b, at + 2 + 2 * i, u[i]);
  return at;
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      default: o += c;
    }
  }
  return o;
}

std::vector<std::string> split_path(const std::string& p) {
  std::vector<std::string> out;
  size_t b = 0;
  for (;;) {
    size_t e = p.find('/', b);
    out.push_back(p.substr(b, e == std::string::npos ? std::string::npos : e - b));
    if (e == std::string::npos) return out;
    b = e + 1;
  }
}

}  // namespace

std::vector<uint8_t> encode_context_map(const ContextMapSpec& map) {
  using L = ContextMapLayout;
  std::vector<uint8_t> b(L::kSize, 0);
  put16(b, L::kDumpSize, map.dump_size);
  put16(b, L::kElemCount, uint16_t(std::min<size_t>(map.regs.size(), L::kEntries)));
  for (uint32_t i = 0; i < L::kEntries; ++i) {
    // Unused entries hold valid "no register here" data, as the spec asks.
    const MapRegisterSpec r = i < map.regs.size() ? map.regs[i] : MapRegisterSpec{};
    put16(b, L::kCommonName + 2 * i, uint16_t(i < map.regs.size() ? r.common : -1));
    std::copy_n(r.name.data(), std::min<size_t>(r.name.size(), L::kNameBytes - 1), b.data() + L::kStrName + L::kNameBytes * i);
    for (bool m64 : {false, true}) {
      const size_t at = (m64 ? L::kRegMap64 : L::kRegMap32) + L::kRegInfoSize * i;
      put16(b, at + L::kInfoOffset, m64 ? r.offset64 : r.offset32);
      b[at + L::kInfoSize] = m64 ? r.size64 : r.size32;
      put16(b, at + L::kInfoEffLargest, uint16_t(m64 ? r.largest64 : r.largest32));
    }
  }
  return b;
}

std::vector<uint8_t> encode_decoded(const DecodedInstructionSpec& d) {
  using D = DecodedLayout;
  std::vector<uint8_t> b(D::kFixedSize + d.slots.size() * LcSlotLayout::kSize, 0);
  put16(b, D::kCategory, d.category);
  put16(b, D::kMnemonic, d.mnemonic);
  put16(b, D::kForm, d.form);
  b[D::kFlags] = d.flags;
  b[D::kExpCount] = uint8_t(d.operands.size());
  for (size_t i = 0; i < d.operands.size() && i < D::kMaxExpOper; ++i) {
    const ExpOperandSpec& o = d.operands[i];
    const size_t at = D::kExpOper + i * ExpOperLayout::kSize;
    put16(b, at + ExpOperLayout::kRegName, o.reg);
    put16(b, at + ExpOperLayout::kOpSize, o.size);
    b[at + ExpOperLayout::kFlags] = o.flags;
    b[at + ExpOperLayout::kBeforeSlot] = o.before_slot;
    b[at + ExpOperLayout::kAfterSlot] = o.after_slot;
    b[at + ExpOperLayout::kBeforeOffset] = o.before_offset;
    b[at + ExpOperLayout::kAfterOffset] = o.after_offset;
  }
  b[D::kEffOperSize] = d.eff_oper_size;
  b[D::kEffAddrSize] = d.eff_addr_size;
  put16(b, D::kLCSize, d.lc_size);
  b[D::kFirstOutSlot] = d.first_out_slot;
  b[D::kFirstAfterSlot] = d.first_after_slot;
  b[D::kLCCount] = uint8_t(d.slots.size());
  b[D::kMem0SegSlot] = d.mem0_seg;
  b[D::kMem0BaseSlot] = d.mem0_base;
  b[D::kMem0Scale] = d.mem0_scale;
  b[D::kMem0IndexSlot] = d.mem0_index;
  b[D::kMem1BaseSlot] = d.mem1_base;
  put64(b, D::kConstSlot, d.const_slot[0]);
  put64(b, D::kConstSlot + 8, d.const_slot[1]);
  for (size_t i = 0; i < d.slots.size(); ++i) {
    const LcSlotSpec& s = d.slots[i];
    const size_t at = D::kLCSlots + i * LcSlotLayout::kSize;
    put16(b, at + LcSlotLayout::kRegName, s.reg);
    put16(b, at + LcSlotLayout::kCommonName, s.common);
    put16(b, at + LcSlotLayout::kValueSize, s.value_size);
    put16(b, at + LcSlotLayout::kOffset, s.offset);
    b[at + LcSlotLayout::kAddrWidth] = s.addr_width;
  }
  return b;
}

uint64_t InstructionTableEncoder::add(const InstructionSpec& ins) {
  std::vector<uint8_t> key = encode_decoded(ins.decoded);
  const uint8_t head[] = {ins.type, uint8_t(ins.cs64)};
  key.insert(key.end(), head, head + 2);
  for (int s = 0; s < 64; s += 8) key.push_back(uint8_t(ins.address >> s));
  for (int s = 0; s < 32; s += 8) key.push_back(uint8_t(uint32_t(ins.module_id) >> s));
  key.push_back(uint8_t(ins.code.size()));
  key.insert(key.end(), ins.code.begin(), ins.code.end());
  key.insert(key.end(), ins.disasm.begin(), ins.disasm.end());
  auto [it, fresh] = by_content_.emplace(std::move(key), specs_.size());
  if (fresh) specs_.push_back(ins);
  return it->second;
}

std::vector<uint8_t> InstructionTableEncoder::encode() const {
  using R = InsRecLayout;
  std::vector<uint8_t> b = itable(record_version_, specs_.size(), R::kSize, true);
  const uint64_t extra = b.size();
  std::map<std::vector<uint8_t>, uint64_t> decoded_at;
  std::map<std::string, uint64_t> text_at;
  for (size_t i = 0; i < specs_.size(); ++i) {
    const InstructionSpec& s = specs_[i];
    const size_t row = ItableHeaderLayout::kSizeWithExtra + i * R::kSize;
    put64(b, row + R::kID, i);
    b[row + R::kType] = s.type;
    b[row + R::kCs64] = s.cs64;
    b[row + R::kCodeSize] = uint8_t(std::min<size_t>(s.code.size(), R::kMaxCode));
    put32(b, row + R::kModuleID, uint32_t(s.module_id));
    put64(b, row + R::kAddress, s.address);
    std::copy_n(s.code.begin(), std::min<size_t>(s.code.size(), R::kMaxCode), b.begin() + row + R::kCodeBytes);
    auto [t, new_text] = text_at.emplace(s.disasm, b.size() - extra);
    if (new_text) {
      const size_t at = b.size();
      b.resize(at + 2 + s.disasm.size() + 1, 0);
      put16(b, at, uint16_t(s.disasm.size()));
      std::copy(s.disasm.begin(), s.disasm.end(), b.begin() + at + 2);
    }
    put64(b, row + R::kDisasmFP, t->second);
    std::vector<uint8_t> dec = encode_decoded(s.decoded);
    auto [d, new_dec] = decoded_at.emplace(dec, b.size() - extra);
    if (new_dec) b.insert(b.end(), dec.begin(), dec.end());
    put64(b, row + R::kDecodedFP, d->second);
  }
  set_extra(b, extra);
  return b;
}

std::vector<uint8_t> encode_module_table(const std::vector<ModuleSpec>& modules) {
  using L = ModuleLayout;
  std::vector<uint8_t> b = itable(0, modules.size(), L::kSize, true);
  const uint64_t extra = b.size();
  for (size_t i = 0; i < modules.size(); ++i) {
    const ModuleSpec& m = modules[i];
    const size_t row = ItableHeaderLayout::kSizeWithExtra + i * L::kSize;
    put64(b, row + L::kLoadEID, uint64_t(m.load_eid));
    put64(b, row + L::kUnloadEID, uint64_t(m.unload_eid));
    put64(b, row + L::kStartAddr, m.start);
    put64(b, row + L::kEndAddr, m.end);
    put64(b, row + L::kWinNameFP, append_ustr(b, m.win_name));  // absolute file pointers
    put64(b, row + L::kDeviceNameFP, append_ustr(b, m.device_name));
  }
  set_extra(b, extra);
  return b;
}

std::vector<uint8_t> encode_thread_table(const std::vector<ThreadRow>& threads) {
  using L = ThreadLayout;
  std::vector<uint8_t> b = itable(0, threads.size(), L::kSize, false);
  for (size_t i = 0; i < threads.size(); ++i) {
    const ThreadRow& t = threads[i];
    const size_t row = ItableHeaderLayout::kSize + i * L::kSize;
    put32(b, row + L::kID, uint32_t(i));
    put32(b, row + L::kWinTID, t.spec.win_tid);
    put64(b, row + L::kTIBAddr, t.spec.tib);
    put64(b, row + L::kFirstEID, uint64_t(t.first_eid));
    put64(b, row + L::kLastEID, uint64_t(t.last_eid));
    put64(b, row + L::kRecCount, t.records);
  }
  return b;
}

std::vector<uint8_t> encode_address_space(const std::vector<std::pair<uint64_t, uint64_t>>& ranges) {
  using L = AddressRangeLayout;
  std::vector<uint8_t> b = itable(0, ranges.size(), L::kSize, false);
  for (size_t i = 0; i < ranges.size(); ++i) {
    const size_t row = ItableHeaderLayout::kSize + i * L::kSize;
    put64(b, row + L::kFirst, ranges[i].first);
    put64(b, row + L::kLast, ranges[i].second);
  }
  return b;
}

std::pair<std::vector<uint8_t>, std::vector<uint8_t>> encode_syscall_tables(const std::vector<SyscallSpec>& calls,
                                                                           uint32_t unified_ids_version) {
  using L = SyscallLayout;
  std::vector<uint8_t> v(L::kHeaderSize, 0), o(calls.size() * L::kOffsetsEntry, 0);
  put32(v, L::kVersion, 0);
  put32(v, L::kUnifiedIDsVer, unified_ids_version);
  put64(v, L::kRecordCount, calls.size());
  for (size_t i = 0; i < calls.size(); ++i) {
    const SyscallSpec& c = calls[i];
    const size_t at = v.size(), size = L::kFixedSize + 8 * c.args.size();
    v.resize(at + size, 0);
    put16(v, at + L::kRawID, c.raw_id);
    put16(v, at + L::kUniformID, c.uniform_id);
    v[at + L::kConvention] = c.convention;
    v[at + L::kCompleted] = c.completed;
    v[at + L::kArgCount] = uint8_t(c.args.size());
    v[at + L::kExtraCount] = 0;
    put64(v, at + L::kBeginEID, uint64_t(c.begin_eid));
    put64(v, at + L::kEndEID, uint64_t(c.end_eid));
    put64(v, at + L::kBeforeSP, c.before_sp);
    put64(v, at + L::kResult, c.result);
    put64(v, at + L::kArgsFP, L::kFixedSize);  // relative to the record
    put64(v, at + L::kExtrasFP, size);
    for (size_t k = 0; k < c.args.size(); ++k) put64(v, at + L::kFixedSize + 8 * k, c.args[k]);
    put64(o, i * L::kOffsetsEntry, at);
    put64(o, i * L::kOffsetsEntry + 8, size);
  }
  return {std::move(v), std::move(o)};
}

std::string encode_trace_xml(const std::vector<std::pair<std::string, std::string>>& leaves) {
  std::string out = "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<Data>\n  <TraceMetaData>\n";
  std::vector<std::string> open;  // elements open below TraceMetaData
  auto indent = [&](size_t depth) { return std::string(4 + 2 * depth, ' '); };
  for (const auto& [path, value] : leaves) {
    std::vector<std::string> parts = split_path(path);
    size_t common = 0;
    while (common < open.size() && common + 1 < parts.size() && open[common] == parts[common]) ++common;
    while (open.size() > common) {
      out += indent(open.size() - 1) + "</" + open.back() + ">\n";
      open.pop_back();
    }
    for (size_t i = common; i + 1 < parts.size(); ++i) {
      out += indent(open.size()) + "<" + parts[i] + ">\n";
      open.push_back(parts[i]);
    }
    out += indent(open.size()) + "<" + parts.back() + ">" + xml_escape(value) + "</" + parts.back() + ">\n";
  }
  while (!open.empty()) {
    out += indent(open.size() - 1) + "</" + open.back() + ">\n";
    open.pop_back();
  }
  return out + "  </TraceMetaData>\n</Data>\n";
}

}  // namespace ttd::fmt::umtrace
