#include "formats/tt6/full_reader.h"

#include <cstdio>
#include <cstring>

#include "formats/common/file_window.h"
#include "formats/tt6/code_bytes_cache.h"
#include "formats/tt6/full_memory_effects.h"
#include "formats/tt6/full_record.h"
#include "formats/tt6/full_registers.h"
#include "formats/tt6/ppc_opcode.h"
#include "formats/tt6/read_window.h"
#include "formats/tt6/tt6_reader.h"

namespace ttd::fmt::tt6 {

namespace {

// The cookie check shared by open() and read().
Status check_cookie(const std::string& path, FileWindow& win) {
  auto got = win.ensure(4);
  if (!got) return got.error();
  if (!got.value())
    return make_error_at(path, 0, "file too short: a FULL trace starts with the 4-byte cookie 0xa1118e17");
  uint32_t cookie = load_be32(win.data());
  if (cookie != kFullCookie)
    return make_error_at(path, 0, "no FULL cookie: expected 0xa1118e17, found " + hex32(cookie));
  return {};
}

}  // namespace

Result<std::unique_ptr<FullReader>> FullReader::open(const std::string& path) {
  auto win = FileWindow::open(path, 4096, kExpected);
  if (!win) return win.error();
  if (Status s = check_cookie(path, *win); !s) return s.error();
  return std::unique_ptr<FullReader>(new FullReader(path));
}

TraceInfo FullReader::info() {
  TraceInfo info;
  info.format = variant_format_name(Variant::Full);
  info.arch = ArchId::Ppc32;
  info.os = "darwin";
  info.caps.registers = true;
  info.caps.memory_values = true;
  info.caps.memory_accesses = true;
  info.caps.code_bytes = true;
  info.caps.note =
      "every user register at every step, the opcode at each pc, and each load/store's address (from "
      "the registers) with its value where the registers tell it; memory never accessed is unknown, "
      "and so is the state after the last instruction";
  info.properties = {{"record", "opcode + ppc_thread_state + ppc_float_state + ppc_vector_state (1004 bytes)"},
                     {"state", "registers before the record's instruction; srr0 = its pc, srr1 = msr"},
                     {"not shown", "mq (601 only); vector registers whose save_vrvalid bit is clear are unknown"},
                     {"threads", "one file per thread (Amber): read as thread 1 of process 1"}};
  return info;
}

Status FullReader::read(TraceSink& sink, const Progress& progress) {
  auto opened = FileWindow::open(path_, kWindow, kExpected);
  if (!opened) return opened.error();
  FileWindow& win = *opened;
  if (Status s = check_cookie(path_, win); !s) return s;
  win.consume(4);
  sink.begin(info());

  const FullRegisterEmitter regs(arch_desc(ArchId::Ppc32));
  CodeBytesCache code;
  uint8_t records[2][full::kRecordBytes];
  PpcUserState states[2];
  uint32_t opcodes[2] = {0, 0};
  int cur = 0;
  uint64_t steps = 0, next_report = 0;

  for (;;) {
    if (progress && win.offset() >= next_report) {
      next_report = win.offset() + kProgressBytes;
      if (!progress(win.offset(), win.file_size())) return make_error_at(path_, win.offset(), "reading cancelled");
    }
    auto more = win.ensure(full::kRecordBytes);
    if (!more) return more.error();
    if (win.available() == 0) break;
    if (!more.value())
      return make_error_at(path_, win.offset(),
                           "FULL record cut short: " + std::to_string(win.available()) + " of " +
                               std::to_string(full::kRecordBytes) + " bytes");
    const uint64_t at = win.offset();
    uint8_t* rec = records[cur];
    std::memcpy(rec, win.data(), full::kRecordBytes);
    win.consume(full::kRecordBytes);
    decode_full_record(rec, opcodes[cur], states[cur]);
    const PpcUserState& now = states[cur];
    if (now.srr0 & 3)
      return make_error_at(path_, at + full::kSrr0, "srr0 (pc) " + hex32(now.srr0) + " is not word aligned");

    const int prev = cur ^ 1;
    if (steps == 0) {
      regs.initial(rec, sink, kThreadId);
    } else {
      // Effects of the previous step: what changed, and what it accessed.
      regs.changes(records[prev], rec, sink, kThreadId);
      emit_full_access(sink, kProcessId, opcodes[prev], states[prev], &now);
    }
    if (code.note(now.srr0, opcodes[cur])) sink.mem_write(kProcessId, now.srr0, std::span<const uint8_t>(rec, 4));
    sink.step(StepInfo{kThreadId, kProcessId, now.srr0, 4,
                       is_syscall(opcodes[cur]) ? StepKind::Syscall : StepKind::Instruction});
    ++steps;
    cur = prev;
  }
  if (steps == 0) return make_error_at(path_, 4, "no records after the cookie: the trace holds no step");
  const int last = cur ^ 1;
  emit_full_access(sink, kProcessId, opcodes[last], states[last], nullptr);
  regs.forget_all(sink, kThreadId);
  if (progress) progress(win.offset(), win.file_size());
  sink.end();
  return {};
}

}  // namespace ttd::fmt::tt6
