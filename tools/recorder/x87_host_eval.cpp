#include "tools/recorder/x87_host_eval.h"

#include <cstring>

#include "tools/recorder/x87_host_ops.h"

namespace ttd::rec {

namespace {

constexpr size_t kFcw = 0, kFsw = 2, kTags = 4, kMxcsr = 24, kSt = 32;
constexpr uint16_t kExceptionMasks = 0x3f;
constexpr uint16_t kPendingBits = 0x8080;  // FSW.B and FSW.ES: an unmasked exception is pending
constexpr uint32_t kHostMxcsr = 0x1f80;

uint16_t get16(const FxsaveImage& m, size_t off) {
  uint16_t v;
  std::memcpy(&v, m.b + off, 2);
  return v;
}
void put16(FxsaveImage& m, size_t off, uint16_t v) { std::memcpy(m.b + off, &v, 2); }

// The fields an x87 instruction changes: FSW, the tags, ST0-7 (10 bytes each).
bool same_result(const FxsaveImage& a, const FxsaveImage& b) {
  if (get16(a, kFsw) != get16(b, kFsw) || a.b[kTags] != b.b[kTags]) return false;
  for (size_t i = 0; i < 8; ++i)
    if (std::memcmp(a.b + kSt + 16 * i, b.b + kSt + 16 * i, 10) != 0) return false;
  return true;
}

}  // namespace

HostFpOp classify_x87(const cs_insn& insn) {
  // Legacy x87 encodings are the opcode and the ModRM byte, nothing else.
  if (insn.size != 2 || !x87_runs_on_host(insn.bytes[0], insn.bytes[1])) return {};
  HostFpOp op;
  op.op = SseHostOp::X87Register;
  op.dst = insn.bytes[0];
  op.src = insn.bytes[1];
  return op;
}

void X87HostEval::before(uc_engine* uc) {
  read_x87(uc, image_);
  fcw_ = get16(image_, kFcw);
  put16(image_, kFcw, uint16_t(fcw_ | kExceptionMasks));
  put16(image_, kFsw, uint16_t(get16(image_, kFsw) & ~kPendingBits));
  std::memcpy(image_.b + kMxcsr, &kHostMxcsr, 4);
}

bool X87HostEval::after(uc_engine* uc, const HostFpOp& op) {
  if (!run_x87_on_host(op.dst, op.src, image_)) return false;
  FxsaveImage emulated;
  read_x87(uc, emulated);
  // The guest's own control word, and its pending bits as Unicorn has them.
  put16(image_, kFcw, fcw_);
  put16(image_, kFsw, uint16_t((get16(image_, kFsw) & ~kPendingBits) | (get16(emulated, kFsw) & kPendingBits)));
  if (same_result(image_, emulated)) return false;
  write_x87(uc, image_);
  return true;
}

}  // namespace ttd::rec
