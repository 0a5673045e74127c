#include "formats/ucir/effect_emitter.h"
#include "state/byte_order.h"
#include "state/target_value.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <string_view>

namespace ttd::fmt::ucir {

void EffectEmitter::emit_reg_value(uint64_t tid, uint16_t reg, uint64_t value) {
  // OP_REG carries a u64; the sink wants target byte order, register-sized
  // (a wider register is zero-extended, as the value was).
  const uint32_t bytes = arch_.regs[reg].bytes();
  if (arch_.endian == Endian::Little && bytes - 1 < 8) return sink_.reg_value(tid, reg, value, bytes);
  uint8_t buf[kMaxSpRegBytes] = {};
  const size_t width = std::min<size_t>(std::max<uint32_t>(arch_.regs[reg].bytes(), 1), sizeof buf);
  store_le(buf, value, std::min<size_t>(width, 8));
  if (arch_.endian == Endian::Big) std::reverse(buf, buf + width);
  sink_.reg(tid, reg, {buf, width});
}

void EffectEmitter::emit_spreg(uint64_t tid, uint16_t reg, const uint8_t* le, size_t n) {
  // SPREG bytes are little-endian (that is how Unicorn hands out wide
  // registers); convert for big-endian targets.
  const size_t width = std::min<size_t>(n, arch_.regs[reg].bytes());
  if (arch_.endian == Endian::Little) return sink_.reg(tid, reg, {le, width});
  uint8_t buf[kMaxSpRegBytes] = {};
  const size_t full = std::min<size_t>(arch_.regs[reg].bytes(), sizeof buf);
  std::copy(le, le + std::min(width, full), buf);
  std::reverse(buf, buf + full);
  sink_.reg(tid, reg, {buf, full});
}

bool EffectEmitter::emit(const EffectGroup& g, uint64_t step_tid) {
  bool exited = false;
  uint64_t tid = step_tid;
  for (const Effect& e : g.effects()) {
    switch (e.op) {
      case OP_REG: emit_reg_value(tid, e.reg, e.size); break;
      case OP_SPREG: emit_spreg(tid, e.reg, g.data_of(e), e.len); break;
      case OP_MEM_READ: sink_.mem_read(pid_, e.addr, uint32_t(e.size), {}); break;
      case OP_MEM_WRITE: sink_.mem_write(pid_, e.addr, {g.data_of(e), e.len}); break;
      case OP_MEM_MAP:
        sink_.mem_map(pid_, e.addr, e.size, e.prot,
                      std::string_view(reinterpret_cast<const char*>(g.data_of(e)), e.len));
        break;
      case OP_MEM_UNMAP: sink_.mem_unmap(pid_, e.addr, e.size); break;
      case OP_MEM_PROT: sink_.mem_protect(pid_, e.addr, e.size, e.prot); break;
      case kEffectMemUnknown: sink_.mem_unknown(pid_, e.addr, e.size); break;
      case OP_EXIT: exited = true; break;
      case kEffectThreadBegin:
        tid = e.addr;
        sink_.thread_begin(tid, pid_);
        break;
      case kEffectThreadPc: {
        uint8_t buf[8];
        const uint32_t n = std::min<uint32_t>(arch_.regs[arch_.pc_index].bytes(), 8);
        store_target_value(arch_.endian, buf, n, e.addr);
        sink_.reg(tid, arch_.pc_index, {buf, n});
        break;
      }
      case kEffectThreadDone: tid = step_tid; break;
      default: break;
    }
  }
  return exited;
}

}  // namespace ttd::fmt::ucir
