// g / p read registers of the selected thread in target byte order, with
// "xx" for every byte of a register the trace does not know. G / P are
// refused: a recorded position cannot be changed.
#include "gdbstub/hex.h"
#include "gdbstub/packets/handlers.h"
#include "gdbstub/packets/thread_select.h"

namespace ttd::gdb::packets {

namespace {

void append_register_value(std::string& out, const RegisterFile& regs, uint16_t index) {
  if (regs.valid(index)) {
    append_hex_bytes(out, regs.bytes(index));
  } else {
    out.append(size_t(regs.arch().regs[index].bytes()) * 2, 'x');
  }
}

std::optional<RegisterFile> registers_for(HandlerContext& ctx, const SuffixSplit& split) {
  auto tid = thread_for_state_access(ctx, split);
  if (!tid) return std::nullopt;
  auto regs = ctx.target.read_registers(*tid);
  if (!regs) {
    ctx.error(ErrorCode::TargetFailed, regs.error().to_string());
    return std::nullopt;
  }
  return std::move(*regs);
}

}  // namespace

void read_all_registers(HandlerContext& ctx, std::string_view args) {
  SuffixSplit split = split_thread_suffix(args);
  if (!split.body.empty()) return ctx.error(ErrorCode::BadPacket, "g takes no arguments");
  auto regs = registers_for(ctx, split);
  if (!regs) return;
  // Table order is gdb regnum order; regnum gaps take no bytes.
  std::string out;
  for (uint16_t i = 0; i < regs->arch().regs.size(); ++i) append_register_value(out, *regs, i);
  ctx.reply(out);
}

void read_register(HandlerContext& ctx, std::string_view args) {
  SuffixSplit split = split_thread_suffix(args);
  auto regnum = parse_hex_u64(split.body);
  if (!regnum) return ctx.error(ErrorCode::BadPacket, "malformed register number");
  const ArchDesc& arch = ctx.target.arch();
  std::optional<uint16_t> index;
  for (uint16_t i = 0; i < arch.regs.size(); ++i)
    if (arch.regs[i].gdb_regnum == *regnum) index = i;
  if (!index) return ctx.error(ErrorCode::BadPacket, "no register with that number");
  auto regs = registers_for(ctx, split);
  if (!regs) return;
  std::string out;
  append_register_value(out, *regs, *index);
  ctx.reply(out);
}

void write_registers(HandlerContext& ctx, std::string_view) {
  ctx.error(ErrorCode::ReadOnly, "registers cannot be changed: this is a recorded trace");
}

}  // namespace ttd::gdb::packets
