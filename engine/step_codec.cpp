#include "engine/step_codec.h"

#include <algorithm>

namespace ttd {

namespace {
enum : uint8_t {
  kSameThread = 1,
  kFallThroughPc = 2,
  kSameSize = 4,
  kInstruction = 8,
  kHasAttrs = 16,
  kHasEffects = 32,
};

enum : uint8_t { kAttrU64 = 0, kAttrI64 = 1, kAttrStr = 2, kAttrList = 3 };

// Register value <-> u64 for registers of at most 8 bytes.
uint64_t value_to_u64(const ArchDesc& a, std::span<const uint8_t> v, uint32_t size) {
  uint64_t x = 0;
  size_t n = std::min<size_t>(v.size(), size);
  if (a.endian == Endian::Little) {
    for (size_t i = 0; i < n; ++i) x |= uint64_t(v[i]) << (8 * i);
  } else {  // short big-endian values hold the low-order bytes
    for (size_t i = 0; i < n; ++i) x |= uint64_t(v[v.size() - 1 - i]) << (8 * i);
  }
  return x;
}
void u64_to_value(const ArchDesc& a, uint64_t x, uint8_t* out, uint32_t size) {
  for (uint32_t i = 0; i < size; ++i) {
    uint8_t b = uint8_t(x >> (8 * i));
    if (a.endian == Endian::Little)
      out[i] = b;
    else
      out[size - 1 - i] = b;
  }
}
}  // namespace

uint64_t& RegisterHistory::slot(uint32_t tidx, uint16_t reg) {
  for (auto& [t, v] : tables_)
    if (t == tidx) return v[reg];
  tables_.emplace_back(tidx, std::vector<uint64_t>(256, 0));
  return tables_.back().second[reg];
}

void StepEncoder::reset() {
  end_step();
  history_.reset();
  prev_tidx_ = ~0u;
  prev_next_pc_ = 0;
  prev_size_ = ~0u;
  prev_addr_ = 0;
}

void StepEncoder::begin_step(uint32_t tidx, uint64_t pid, uint64_t pc, uint32_t size, fmt::StepKind kind) {
  end_step();
  open_ = true;
  tidx_ = eff_tidx_ = tidx;
  pid_ = eff_pid_ = pid;
  pc_ = pc;
  size_ = size;
  kind_ = kind;
  nattrs_ = 0;
  attrs_.clear();
  effects_.clear();
}

void StepEncoder::end_step() {
  if (!open_) return;
  open_ = false;
  uint8_t h = 0;
  if (tidx_ == prev_tidx_) h |= kSameThread;
  if (pc_ == prev_next_pc_) h |= kFallThroughPc;
  if (size_ == prev_size_) h |= kSameSize;
  if (kind_ == fmt::StepKind::Instruction) h |= kInstruction;
  if (nattrs_) h |= kHasAttrs;
  if (effects_.size()) h |= kHasEffects;
  out_.u8(h);
  if (!(h & kSameThread)) out_.var(tidx_);
  if (!(h & kFallThroughPc)) out_.svar(int64_t(pc_ - prev_next_pc_));
  if (!(h & kSameSize)) out_.var(size_);
  if (!(h & kInstruction)) out_.u8(uint8_t(kind_));
  if (nattrs_) {
    out_.var(attrs_.size() + 0);
    out_.bytes(attrs_.data(), attrs_.size());
  }
  if (effects_.size()) {
    out_.var(effects_.size());
    out_.bytes(effects_.data(), effects_.size());
  }
  prev_tidx_ = tidx_;
  prev_next_pc_ = pc_ + size_;
  prev_size_ = size_;
}

void StepEncoder::attr(uint32_t key_id, const fmt::AttrValue& v) {
  if (!open_) return;
  ++nattrs_;
  attrs_.var(key_id);
  if (auto* u = std::get_if<uint64_t>(&v)) {
    attrs_.u8(kAttrU64);
    attrs_.var(*u);
  } else if (auto* i = std::get_if<int64_t>(&v)) {
    attrs_.u8(kAttrI64);
    attrs_.svar(*i);
  } else if (auto* s = std::get_if<std::string>(&v)) {
    attrs_.u8(kAttrStr);
    attrs_.str(*s);
  } else if (auto* l = std::get_if<std::vector<uint64_t>>(&v)) {
    attrs_.u8(kAttrList);
    attrs_.var(l->size());
    for (uint64_t x : *l) attrs_.var(x);
  }
}

void StepEncoder::ctx_thread(uint32_t tidx) {
  if (tidx == eff_tidx_) return;
  effects_.u8(uint8_t(EffectTag::CtxThread));
  effects_.var(tidx);
  eff_tidx_ = tidx;
}
void StepEncoder::ctx_pid(uint64_t pid) {
  if (pid == eff_pid_) return;
  effects_.u8(uint8_t(EffectTag::CtxPid));
  effects_.var(pid);
  eff_pid_ = pid;
}
void StepEncoder::mem_addr(uint64_t addr, uint64_t size) {
  effects_.svar(int64_t(addr - prev_addr_));
  effects_.var(size);
  prev_addr_ = addr + size;
}

void StepEncoder::reg(uint32_t tidx, uint16_t reg, std::span<const uint8_t> value) {
  ctx_thread(tidx);
  uint32_t size = arch_->regs[reg].bytes();
  effects_.u8(uint8_t(EffectTag::Reg));
  effects_.var(reg);
  if (size <= 8) {
    uint64_t x = value_to_u64(*arch_, value, size);
    uint64_t& last = history_.slot(tidx, reg);
    effects_.svar(int64_t(x - last));
    last = x;
  } else {
    // Wide registers: full size in target order (zero-extended like RegisterFile).
    uint8_t buf[64] = {0};
    size_t n = std::min<size_t>(value.size(), std::min<uint32_t>(size, 64));
    if (arch_->endian == Endian::Little)
      std::copy_n(value.data(), n, buf);
    else
      std::copy_n(value.data() + value.size() - n, n, buf + size - n);
    effects_.bytes(buf, size);
  }
}

void StepEncoder::reg_unknown(uint32_t tidx, uint16_t reg) {
  ctx_thread(tidx);
  effects_.u8(uint8_t(EffectTag::RegUnknown));
  effects_.var(reg);
  history_.slot(tidx, reg) = 0;
}

void StepEncoder::mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) {
  ctx_pid(pid);
  effects_.u8(uint8_t(EffectTag::MemWrite));
  mem_addr(addr, bytes.size());
  effects_.bytes(bytes.data(), bytes.size());
}

void StepEncoder::mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
  ctx_pid(pid);
  effects_.u8(uint8_t(EffectTag::MemRead));
  mem_addr(addr, size);
  bool has = bytes.size() == size && size > 0;
  effects_.u8(has);
  if (has) effects_.bytes(bytes.data(), size);
}

void StepEncoder::mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) {
  ctx_pid(pid);
  effects_.u8(uint8_t(EffectTag::MemUnknown));
  mem_addr(addr, size);
}

void StepEncoder::mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {
  ctx_pid(pid);
  effects_.u8(uint8_t(EffectTag::MemMap));
  mem_addr(addr, size);
  effects_.u8(prot);
  effects_.str(name);
}

void StepEncoder::mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) {
  ctx_pid(pid);
  effects_.u8(uint8_t(EffectTag::MemUnmap));
  mem_addr(addr, size);
}

void StepEncoder::mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) {
  ctx_pid(pid);
  effects_.u8(uint8_t(EffectTag::MemProt));
  mem_addr(addr, size);
  effects_.u8(prot);
}

void StepEncoder::thread_begin(uint32_t tidx) {
  effects_.u8(uint8_t(EffectTag::ThreadBegin));
  effects_.var(tidx);
}
void StepEncoder::thread_end(uint32_t tidx) {
  effects_.u8(uint8_t(EffectTag::ThreadEnd));
  effects_.var(tidx);
}

StepDecoder::StepDecoder(const ArchDesc& arch, const uint8_t* data, size_t size) : arch_(&arch), in_(data, size) {
  prev_tidx_ = ~0u;
  prev_size_ = ~0u;
}

bool StepDecoder::next(DecodedStep& s) {
  if (!ok_ || in_.at_end()) return false;
  uint8_t h = in_.u8();
  s.tidx = (h & kSameThread) ? prev_tidx_ : uint32_t(in_.var());
  s.pc = (h & kFallThroughPc) ? prev_next_pc_ : prev_next_pc_ + uint64_t(in_.svar());
  s.size = (h & kSameSize) ? prev_size_ : uint32_t(in_.var());
  s.kind = (h & kInstruction) ? fmt::StepKind::Instruction : fmt::StepKind(in_.u8());
  s.attrs = ByteReader();
  s.effects = ByteReader();
  if (h & kHasAttrs) {
    uint64_t n = in_.var();
    const uint8_t* p = in_.take(n);
    if (p) s.attrs = ByteReader(p, n);
  }
  if (h & kHasEffects) {
    uint64_t n = in_.var();
    const uint8_t* p = in_.take(n);
    if (p) s.effects = ByteReader(p, n);
  }
  if (!in_.ok() || s.tidx == ~0u || s.size == ~0u) {
    ok_ = false;
    return false;
  }
  prev_tidx_ = s.tidx;
  prev_next_pc_ = s.pc + s.size;
  prev_size_ = s.size;
  return true;
}

bool StepDecoder::effects(const DecodedStep& s, EffectVisitor& v, uint64_t step_pid) {
  ByteReader r = s.effects;
  uint32_t tidx = s.tidx;
  uint64_t pid = step_pid;
  uint64_t& prev_addr = prev_addr_;
  auto addr_size = [&](uint64_t& addr, uint64_t& size) {
    addr = prev_addr + uint64_t(r.svar());
    size = r.var();
    prev_addr = addr + size;
  };
  uint8_t wide[64];
  while (r.ok() && !r.at_end()) {
    auto tag = EffectTag(r.u8());
    uint64_t addr = 0, size = 0;
    switch (tag) {
      case EffectTag::Reg: {
        uint64_t reg = r.var();
        if (reg >= arch_->regs.size()) return ok_ = false;
        uint32_t rsize = arch_->regs[reg].bytes();
        if (rsize <= 8) {
          uint64_t& last = history_.slot(tidx, uint16_t(reg));
          last += uint64_t(r.svar());
          u64_to_value(*arch_, last, wide, rsize);
          v.reg(tidx, uint16_t(reg), wide, rsize);
        } else {
          const uint8_t* p = r.take(rsize);
          if (!p) return ok_ = false;
          v.reg(tidx, uint16_t(reg), p, rsize);
        }
        break;
      }
      case EffectTag::RegUnknown: {
        uint64_t reg = r.var();
        if (reg >= arch_->regs.size()) return ok_ = false;
        history_.slot(tidx, uint16_t(reg)) = 0;
        v.reg_unknown(tidx, uint16_t(reg));
        break;
      }
      case EffectTag::MemWrite: {
        addr_size(addr, size);
        const uint8_t* p = r.take(size);
        if (!p) return ok_ = false;
        v.mem_write(pid, addr, p, size);
        break;
      }
      case EffectTag::MemRead: {
        addr_size(addr, size);
        const uint8_t* p = nullptr;
        if (r.u8()) {
          p = r.take(size);
          if (!p) return ok_ = false;
        }
        v.mem_read(pid, addr, size, p);
        break;
      }
      case EffectTag::MemUnknown:
        addr_size(addr, size);
        v.mem_unknown(pid, addr, size);
        break;
      case EffectTag::MemMap: {
        addr_size(addr, size);
        uint8_t prot = r.u8();
        std::string name = r.str();
        v.mem_map(pid, addr, size, prot, name);
        break;
      }
      case EffectTag::MemUnmap:
        addr_size(addr, size);
        v.mem_unmap(pid, addr, size);
        break;
      case EffectTag::MemProt: {
        addr_size(addr, size);
        v.mem_protect(pid, addr, size, r.u8());
        break;
      }
      case EffectTag::ThreadBegin:
        v.thread_begin(uint32_t(r.var()));
        break;
      case EffectTag::ThreadEnd:
        v.thread_end(uint32_t(r.var()));
        break;
      case EffectTag::CtxThread:
        tidx = uint32_t(r.var());
        break;
      case EffectTag::CtxPid:
        pid = r.var();
        break;
      default:
        return ok_ = false;
    }
  }
  if (!r.ok()) ok_ = false;
  return ok_;
}

bool StepDecoder::attrs(const DecodedStep& s, std::vector<std::pair<uint32_t, fmt::AttrValue>>& out) {
  ByteReader r = s.attrs;
  while (r.ok() && !r.at_end()) {
    uint32_t key = uint32_t(r.var());
    uint8_t type = r.u8();
    switch (type) {
      case kAttrU64: out.emplace_back(key, r.var()); break;
      case kAttrI64: out.emplace_back(key, r.svar()); break;
      case kAttrStr: out.emplace_back(key, r.str()); break;
      case kAttrList: {
        uint64_t n = r.var();
        if (n > r.remaining()) return false;
        std::vector<uint64_t> l(n);
        for (auto& x : l) x = r.var();
        out.emplace_back(key, std::move(l));
        break;
      }
      default: return false;
    }
  }
  return r.ok();
}

}  // namespace ttd
