#include "tools/ttd/trace_options.h"

#include <unistd.h>

#include <charconv>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <iostream>

#include "engine/index_temp_files.h"

namespace ttd::cli {

void add_trace_options(CLI::App& sub, TraceOptions& o) {
  sub.add_option("TRACE", o.path, "trace file (or directory)")->required();
  sub.add_option("--format", o.format, "force the trace format instead of detecting it");
  sub.add_option("--index", o.index_path, "index file to use (default: TRACE.ttdidx, or the cache dir)");
  sub.add_option("--cache-dir", o.cache_dir, "where to keep the index when the trace's folder is read-only");
  sub.add_option("--instr-map", o.instr_map, "XRay: the instrumented binary, to resolve function ids");
  sub.add_option("--program", o.program,
                 "the traced program's ELF: code bytes where the trace has none (default: the program the trace "
                 "names, if it exists and fits)");
  sub.add_option("--symbols", o.symbols,
                 "FILE[@ADDR]: an ELF file whose symbols and DWARF lines name pcs (a shared object at its load "
                 "address ADDR; default: where the trace maps it). Repeatable");
  sub.add_flag("--rebuild", o.rebuild, "rebuild the index even if a valid one exists");
  sub.add_option("--max-steps", o.max_steps,
                 "accept a trace that expands to up to N steps (default: a limit that grows with the file size)")
      ->check(CLI::PositiveNumber);
  sub.add_flag("--no-backing-files", o.no_backing_files,
               "UCIR: leave mappings usercorn trimmed unknown instead of reading their backing files");
  sub.add_option("--keyframe-interval", o.keyframe_interval,
                 "steps between keyframes when building the index (default " +
                     std::to_string(kDefaultKeyframeInterval) + ")")
      ->check(CLI::Range(kMinKeyframeInterval, kMaxKeyframeInterval));
}

uint64_t announce_build_bytes() {
  uint64_t v = 0;
  if (const char* e = std::getenv("TTD_INDEX_NOTICE_BYTES"); e && parse_u64(e, v)) return v;
  return uint64_t(256) << 20;
}

std::shared_ptr<Trace> open_trace_or_report(const TraceOptions& o) {
  // An index build killed by Ctrl-C, kill or a closed terminal removes
  // its temporary file on the way out.
  remove_temp_files_on_signals();
  OpenOptions opts;
  opts.format = o.format;
  opts.index_path = o.index_path;
  opts.cache_dir = o.cache_dir;
  opts.rebuild = o.rebuild;
  opts.keyframe_interval = o.keyframe_interval;
  opts.reader.instr_map_binary = o.instr_map;
  opts.reader.max_steps = o.max_steps;
  opts.reader.backing_files = !o.no_backing_files;
  opts.program = o.program;
  for (const auto& text : o.symbols) {
    auto f = parse_symbol_file(text);
    if (!f) {
      std::cerr << "ttd: " << f.error().to_string() << "\n";
      return nullptr;
    }
    opts.symbol_files.push_back(*f);
  }
  bool bar = o.progress && ::isatty(2);
  auto last = std::chrono::steady_clock::now();
  const auto started = last;
  bool announced = false;
  if (bar) {
    opts.progress = [&last](uint64_t done, uint64_t total) {
      auto now = std::chrono::steady_clock::now();
      if (now - last < std::chrono::milliseconds(100) && done != total) return true;
      last = now;
      int pct = total ? int(100.0 * double(done) / double(total)) : 0;
      int filled = pct * 40 / 100;
      std::fprintf(stderr, "\rindexing [%.*s%*s] %3d%%", filled, "########################################", 40 - filled, "", pct);
      std::fflush(stderr);
      return true;
    };
  } else if (o.progress) {
    // Called only while an index is built, never when one is reused.
    opts.progress = [&announced, &o, from = announce_build_bytes()](uint64_t, uint64_t total) {
      if (!announced && total >= from) {
        announced = true;
        std::fprintf(stderr, "ttd: indexing %s (%llu MB; once, the index is kept for later runs)\n", o.path.c_str(),
                     (unsigned long long)(total >> 20));
      }
      return true;
    };
  }
  auto t = Trace::open(o.path, opts);
  if (bar) std::fprintf(stderr, "\r%60s\r", "");
  if (announced && t)
    std::fprintf(stderr, "ttd: indexed in %.1f s\n",
                 std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count());
  if (!t) {
    std::cerr << "ttd: " << t.error().to_string() << "\n";
    return nullptr;
  }
  return *t;
}

bool parse_u64(const std::string& s, uint64_t& out) {
  if (s.empty()) return false;
  const char* b = s.data();
  const char* e = s.data() + s.size();
  int base = 10;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    b += 2;
    base = 16;
  }
  auto r = std::from_chars(b, e, out, base);
  return r.ec == std::errc() && r.ptr == e;
}

std::string hex_u64(uint64_t v) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "0x%llx", (unsigned long long)v);
  return buf;
}

}  // namespace ttd::cli
