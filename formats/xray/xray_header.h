// The 32-byte XRay log file header, shared by FDR and basic (naive) logs.
#pragma once
#include <cstdint>
#include <span>
#include <string>

#include "formats/common/file_window.h"
#include "state/error.h"

namespace ttd::fmt::xray {

enum class LogType : uint16_t { Basic = 0, Fdr = 1 };

struct FileHeader {
  uint16_t version = 0;
  LogType type = LogType::Fdr;
  bool constant_tsc = false;
  bool nonstop_tsc = false;
  uint64_t cycle_frequency = 0;
  // FDR: the runtime's per-thread buffer size (compiler-rt writes it; LLVM's
  // own FDRTraceWriter leaves 0). Basic logs leave these bytes uninitialised,
  // so for them the value means nothing.
  uint64_t buffer_size = 0;

  bool is_fdr() const { return type == LogType::Fdr; }
  std::string format_name() const { return is_fdr() ? "xray-fdr" : "xray-basic"; }
};

constexpr size_t kFileHeaderSize = 32;
constexpr uint16_t kMaxFdrVersion = 5;
constexpr uint16_t kMaxBasicVersion = 3;

// Parses and validates the header; `where` names the file in errors.
Result<FileHeader> parse_file_header(std::span<const uint8_t> bytes, const std::string& where);

// Opens an XRay log with the formats' file reader. Only a regular file:
// its size bounds every length a record declares.
Result<FileWindow> open_xray_file(const std::string& path, size_t window = FileWindow::kDefaultWindow);
// Reads the header at the start of `in` and leaves `in` just after it.
Result<FileHeader> read_file_header(FileWindow& in);

// True when the bytes look like the start of an XRay log this reader
// supports (a cheap check for format sniffing; parse_file_header is the
// authority). `file_size` tells a header-only log (nothing flushed yet).
bool looks_like_xray(std::span<const uint8_t> head, uint64_t file_size);

}  // namespace ttd::fmt::xray
