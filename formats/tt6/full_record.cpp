#include "formats/tt6/full_record.h"

#include <cstring>

namespace ttd::fmt::tt6 {

void encode_full_record(uint32_t opcode, const PpcUserState& s, uint8_t out[full::kRecordBytes]) {
  std::memset(out, 0, full::kRecordBytes);
  store_be32(out + full::kOpcode, opcode);
  store_be32(out + full::kSrr0, s.srr0);
  store_be32(out + full::kSrr1, s.srr1);
  for (int i = 0; i < 32; ++i) store_be32(out + full::kGpr0 + 4 * i, s.gpr[i]);
  store_be32(out + full::kCr, s.cr);
  store_be32(out + full::kXer, s.xer);
  store_be32(out + full::kLr, s.lr);
  store_be32(out + full::kCtr, s.ctr);
  store_be32(out + full::kMq, s.mq);
  store_be32(out + full::kVrsave, s.vrsave);
  for (int i = 0; i < 32; ++i) store_be64(out + full::kFpr0 + 8 * i, s.fpr[i]);
  store_be32(out + full::kFpscr, s.fpscr);
  for (int i = 0; i < 32; ++i)
    for (int w = 0; w < 4; ++w) store_be32(out + full::kVr0 + 16 * i + 4 * w, s.vr[i][w]);
  store_be32(out + full::kVscr, s.vscr);
  store_be32(out + full::kVrvalid, s.vrvalid);
}

void decode_full_record(const uint8_t in[full::kRecordBytes], uint32_t& opcode, PpcUserState& s) {
  opcode = load_be32(in + full::kOpcode);
  s.srr0 = load_be32(in + full::kSrr0);
  s.srr1 = load_be32(in + full::kSrr1);
  for (int i = 0; i < 32; ++i) s.gpr[i] = load_be32(in + full::kGpr0 + 4 * i);
  s.cr = load_be32(in + full::kCr);
  s.xer = load_be32(in + full::kXer);
  s.lr = load_be32(in + full::kLr);
  s.ctr = load_be32(in + full::kCtr);
  s.mq = load_be32(in + full::kMq);
  s.vrsave = load_be32(in + full::kVrsave);
  for (int i = 0; i < 32; ++i) s.fpr[i] = load_be64(in + full::kFpr0 + 8 * i);
  s.fpscr = load_be32(in + full::kFpscr);
  for (int i = 0; i < 32; ++i)
    for (int w = 0; w < 4; ++w) s.vr[i][w] = load_be32(in + full::kVr0 + 16 * i + 4 * w);
  s.vscr = load_be32(in + full::kVscr);
  s.vrvalid = load_be32(in + full::kVrvalid);
}

}  // namespace ttd::fmt::tt6
