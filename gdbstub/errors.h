// Error replies. Numbers are fixed so tests and users can rely on them; the
// message travels too when the client negotiated textual errors (lldb's
// QEnableErrorStrings, gdb's error-message+), otherwise only the number.
#pragma once
#include <string>
#include <string_view>

#include "gdbstub/session_state.h"

namespace ttd::gdb {

enum class ErrorCode : uint8_t {
  ReadOnly = 0x01,       // G / P / M / X: a recorded trace cannot be changed
  UnknownThread = 0x02,  // a thread id that is not alive here
  BadPacket = 0x03,      // malformed fields: non-hex, missing separator, overflow
  TargetFailed = 0x05,   // the target could not answer (e.g. a damaged index)
  Unsupported = 0x06,    // understood but not possible here (e.g. vCont;t)
  TooLong = 0x07,        // packet longer than PacketSize
  MemoryUnreadable = 0x14,  // "E14": nothing known at that address
};

// "E01", "E01;<hex message>" (lldb) or "E.<message>" (gdb error-message+).
std::string error_reply(const ClientFeatures& client, ErrorCode code, std::string_view message);

}  // namespace ttd::gdb
