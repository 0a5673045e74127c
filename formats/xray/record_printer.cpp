#include "formats/xray/record_printer.h"

#include <cstdio>
#include <string_view>

namespace ttd::fmt::xray {

namespace {

std::string_view data(const FdrRecord& r) {
  return {reinterpret_cast<const char*>(r.payload.data()), r.payload.size()};
}

const char* action_label(FunctionAction a) {
  switch (a) {
    case FunctionAction::Enter:
      return "Function Enter";
    case FunctionAction::EnterArgs:
      return "Function Enter With Arg";
    case FunctionAction::Exit:
      return "Function Exit";
    case FunctionAction::TailExit:
      return "Function Tail Exit";
  }
  return "Function";
}

}  // namespace

Status RecordPrinter::visit(const FdrRecord& r) {
  int32_t size = int32_t(r.payload.size());
  switch (r.kind) {
    case RecordKind::BufferExtents:
      os_ << "<Buffer: size = " << r.value << " bytes>\n";
      break;
    case RecordKind::WallTime: {
      char micros[16];
      std::snprintf(micros, sizeof micros, "%06u", r.micros);
      os_ << "<Wall Time: seconds = " << r.value << "." << micros << ">\n";
      break;
    }
    case RecordKind::NewCpu:
      os_ << "<CPU: id = " << r.cpu << ", tsc = " << r.value << ">\n";
      break;
    case RecordKind::TscWrap:
      os_ << "<TSC Wrap: base = " << r.value << ">\n";
      break;
    case RecordKind::CustomEvent:
      // Version 5 events carry a delta; earlier ones an absolute TSC and CPU.
      if (version_ >= 5)
        os_ << "<Custom Event: delta = +" << r.event_delta << ", size = " << size << ", data = '" << data(r) << "'>\n";
      else
        os_ << "<Custom Event: tsc = " << r.value << ", cpu = " << r.cpu << ", size = " << size << ", data = '"
            << data(r) << "'>\n";
      break;
    case RecordKind::TypedEvent:
      // llvm-xray prints no closing '>' here; kept for line-by-line diffs.
      os_ << "<Typed Event: delta = +" << r.event_delta << ", type = " << r.event_type << ", size = " << size
          << ", data = '" << data(r) << "'\n";
      break;
    case RecordKind::CallArgument: {
      char hex[24];
      std::snprintf(hex, sizeof hex, "0x%llx", static_cast<unsigned long long>(r.value));
      os_ << "<Call Argument: data = " << r.value << " (hex = " << hex << ")>\n";
      break;
    }
    case RecordKind::Pid:
      os_ << "<PID: " << r.id << ">\n";
      break;
    case RecordKind::NewBuffer:
      os_ << "<Thread ID: " << r.id << ">\n";
      break;
    case RecordKind::EndOfBuffer:
      os_ << "<End of Buffer>\n";
      break;
    case RecordKind::Function:
      os_ << "<" << action_label(r.action) << ": #" << r.func_id << " delta = +" << r.delta << ">\n";
      break;
    case RecordKind::Skipped:
      if (r.certain)
        os_ << "<Skipped: " << r.skipped << " bytes at offset " << r.offset << ", at least " << r.lost
            << " bytes never written>\n";
      else
        os_ << "<Skipped: suspected loss of " << r.lost << " bytes after offset " << r.offset << ">\n";
      break;
  }
  return {};
}

}  // namespace ttd::fmt::xray
