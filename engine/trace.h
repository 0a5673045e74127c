// An opened, indexed trace. Opening imports the trace into an index once
// (stored next to the trace, or in a cache directory), reuses it on later
// opens, and rebuilds it when the trace changed or the index is corrupt.
// A Trace is immutable after open and safe to share between threads; each
// debugger client gets its own Cursor over it.
//
// Front-facing headers: the front ends (tools/, dap/, python/) include only these
// engine headers; every other one (the index, step codec, chunk decoders,
// summaries, keyframes) is internal. tests/cli/front_includes.py checks it.
//   engine/trace.h engine/cursor.h engine/motion_types.h
//   engine/motion/timeline.h engine/motion/line_table.h
//   engine/program_image.h engine/symbolizer.h engine/effect_visitor.h
//   engine/step_stream.h engine/index_breakdown.h engine/index_temp_files.h
//   engine/query/calls.h engine/query/executions.h engine/query/memory_history.h
//   engine/query/register_history.h engine/query/value_search.h
//   engine/query/origin.h engine/query/origin_render.h engine/query/query_json.h
//   engine/query/query_text.h engine/query/query_types.h engine/query/program_code_fill.h
//   engine/export/trace_export.h engine/export/output_stream.h
//   engine/diff/run_diff.h
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "formats/common/trace_reader.h"
#include "state/error.h"
#include "engine/symbolizer.h"
#include "state/machine_state.h"

namespace ttd {

class IndexFile;
class PageCache;
class ProgramImage;

// Steps per chunk when the caller does not say. Seek cost grows with it
// (up to K steps replayed from a keyframe) and build cost shrinks (a
// keyframe, its dirty pages and summaries per chunk): on the 110 M-step
// loop, 2048 -> 3072 took the one-core build from 5.2 to 4.9 s and seek
// p50 from 55 to 72 us (docs/performance.md).
constexpr uint32_t kDefaultKeyframeInterval = 3072;
// The range Trace::open accepts (every front end: CLI, Python, DAP). Below
// 16 the index grows to many times the trace (a keyframe per step or two).
constexpr uint32_t kMinKeyframeInterval = 16;
constexpr uint32_t kMaxKeyframeInterval = 1u << 24;

struct OpenOptions {
  std::string format;             // force a format ("" = sniff)
  fmt::ReaderOptions reader;
  // Explicit index file ("" = next to the trace or in cache_dir). An
  // existing file there is replaced only if it is this trace's index (or
  // a damaged / older ttd index, or empty): never a non-index file, a
  // device, FIFO or directory, or a valid index of another trace.
  std::string index_path;
  // Used when the trace's folder is not writable and holds no valid index
  // of the trace (a valid one beside the trace is used even then).
  std::string cache_dir;
  bool rebuild = false;           // ignore an existing index
  // Steps per chunk (a keyframe starts each chunk), kMinKeyframeInterval..kMaxKeyframeInterval.
  uint32_t keyframe_interval = kDefaultKeyframeInterval;
  fmt::Progress progress;         // import progress (bytes of the source)
  // Supplies the reader instead of probing the registry (tests, tools that
  // produce a step stream themselves).
  std::function<Result<std::unique_ptr<fmt::TraceReader>>()> reader_factory;
  // Whether a folder can take the index ("" = access(W_OK)); tests make a
  // folder read-only with it (as root, access() says yes to any folder not
  // on a read-only mount).
  std::function<bool(const std::string& folder)> folder_writable;
  // The traced program's ELF: code bytes where the trace holds none
  // ("" = the program the trace names, if it exists and fits; see
  // engine/program_image.h).
  std::string program;
  // More ELF files for symbols (shared objects, a program the trace does
  // not name), each at its load address or where the trace maps it.
  std::vector<SymbolFile> symbol_files;
};

// The error Trace::open returns for options out of range ("" = none).
Status check_open_options(const OpenOptions& o);

struct ThreadInfo {
  uint64_t tid = 0, pid = 0;
  uint64_t first_eid = 0, last_eid = 0;  // first and last step of this thread
  uint64_t steps = 0;
};

struct IndexStats {
  uint64_t steps = 0;
  uint64_t chunks = 0;
  uint64_t keyframes = 0;
  uint64_t unique_pages = 0;
  uint64_t index_bytes = 0;
  uint64_t source_bytes = 0;
  double build_seconds = 0;   // 0 when the index was reused
  bool reused = false;
  std::string index_path;
};

// One decoded step with its effects, as stored in the index.
struct StepRecord {
  uint64_t eid = 0;
  fmt::StepInfo info;
  std::vector<std::pair<std::string, fmt::AttrValue>> attrs;
  struct RegWrite { uint16_t reg; std::vector<uint8_t> value; };
  struct MemAccess { uint64_t addr; uint32_t size; bool write; std::vector<uint8_t> value; };
  std::vector<RegWrite> regs;
  std::vector<MemAccess> mem;
};

class Trace {
 public:
  static Result<std::shared_ptr<Trace>> open(const std::string& path, const OpenOptions& opts = {});
  ~Trace();

  const std::string& path() const { return path_; }
  const fmt::TraceInfo& info() const { return info_; }
  const ArchDesc& arch() const { return arch_desc(info_.arch); }
  uint64_t step_count() const;
  const std::vector<ThreadInfo>& threads() const { return threads_; }
  const IndexStats& stats() const { return stats_; }
  uint32_t chunk_steps() const;

  // Decodes steps [from, to) in order; fn returns false to stop early.
  Status for_each_step(uint64_t from, uint64_t to, const std::function<bool(const StepRecord&)>& fn) const;

  // The program image serving code bytes the trace lacks (null: none), and
  // where code bytes come from, for output. The program the trace names
  // (up to 1 GiB of segments, checked against the pcs of 64 chunks) is
  // loaded at the first call of either, not at open: most opens (a query
  // at an EID, a trace with code bytes) never need it. One given in
  // OpenOptions::program is loaded at open, so its errors are reported there.
  const ProgramImage* program() const;
  const std::string& code_source() const;
  // pc -> function+offset, source:line (engine/symbolizer.h); reads
  // nothing until the first lookup.
  const Symbolizer& symbolizer() const { return *symbolizer_; }

  // Reads and checks every table group and blob of the index (`ttd index
  // --verify`; opening checks only the header and directory head): the
  // first corruption found, naming the index file and byte offset.
  Status verify_index() const;

  // Internal: the index (used by Cursor and queries).
  const IndexFile& index() const { return *index_; }
  PageCache& pages() const { return *pages_; }

 private:
  Trace() = default;
  std::string path_;
  fmt::TraceInfo info_;
  std::vector<ThreadInfo> threads_;
  IndexStats stats_;
  std::unique_ptr<IndexFile> index_;
  std::unique_ptr<PageCache> pages_;
  void choose_program() const;
  mutable std::once_flag program_once_;
  mutable std::shared_ptr<const ProgramImage> program_;
  mutable std::string code_source_;
  std::unique_ptr<Symbolizer> symbolizer_;
};

}  // namespace ttd
