// Basic ("naive") mode logs, versions 1 to 3: after the file header, a
// sequence of 32-byte records that are already expanded (absolute TSC,
// thread, process, CPU on each record):
//
//   u16 record type (0 function, 1 argument payload)
//   function:  u8 cpu, u8 action, i32 function id, u64 tsc, u32 tid, u32 pid, 8 pad
//   argument:  2 pad, i32 function id, u32 tid, u32 pid, u64 argument, 8 pad
//
// An argument record belongs to the entry right before it (same function
// and thread, and process from version 3), as LLVM checks.
#pragma once
#include <cstdint>
#include <functional>

#include "formats/common/file_window.h"
#include "formats/xray/xray_event.h"
#include "formats/xray/xray_header.h"

namespace ttd::fmt::xray {

constexpr uint32_t kBasicRecordSize = 32;

// Streams every record after the header to `out`, in file order. `tick` is
// called now and then with the current offset; returning false cancels.
Status read_basic_log(FileWindow& in, const FileHeader& h, EventConsumer& out,
                      const std::function<bool(uint64_t)>& tick);

}  // namespace ttd::fmt::xray
