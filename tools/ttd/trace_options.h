// Options every subcommand that opens a trace shares (--format, --index,
// --cache-dir, --instr-map, --program, --symbols, --rebuild, --max-steps,
// --no-backing-files), and opening with them.
#pragma once
#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <vector>

#include "engine/trace.h"

namespace ttd::cli {

struct TraceOptions {
  std::string path;
  std::string format;
  std::string index_path;
  std::string cache_dir;
  std::string instr_map;
  std::string program;  // the traced program's ELF, for code bytes the trace lacks
  std::vector<std::string> symbols;  // FILE[@ADDR]: more ELF files to name pcs with
  bool rebuild = false;
  uint64_t max_steps = 0;        // 0 = the readers' automatic limit (formats/common/step_limit.h)
  bool no_backing_files = false;  // UCIR: do not read trimmed mappings' backing files
  uint32_t keyframe_interval = kDefaultKeyframeInterval;
  // While an index is built: a progress bar when stderr is a terminal;
  // otherwise one line before and one after, for a trace of at least
  // announce_build_bytes() (a build then takes seconds to minutes, and a
  // script's log should say why the command is quiet).
  bool progress = true;
};

// 256 MiB, or the environment's TTD_INDEX_NOTICE_BYTES (0: every build).
uint64_t announce_build_bytes();

void add_trace_options(CLI::App& sub, TraceOptions& o);
// Opens (importing if needed); on failure prints the error to stderr and
// returns nullptr.
std::shared_ptr<Trace> open_trace_or_report(const TraceOptions& o);
// Parses a number in decimal or 0x-hex; the whole string must be a number.
bool parse_u64(const std::string& s, uint64_t& out);
std::string hex_u64(uint64_t v);

}  // namespace ttd::cli
