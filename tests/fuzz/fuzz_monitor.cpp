// libFuzzer target: arbitrary text as a `monitor` command line through the
// argument parser (tools/ttd/monitor_args) and the query dispatch
// (tools/ttd/query_monitor: history, history-reg, executions, calls,
// search), against a small UCIR trace written once at start-up. Nothing may
// crash, hang or grow without bound; a failure must say "error: ".
//
// The first byte is a control byte: its low bit makes the interrupt check
// fire after a few polls (the cancel paths), bits 1-2 make the output sink
// refuse after a few lines (the client went away); the rest is the command
// line ("executions 0x401000 --limit 0 --json").
// Seeds: tests/fuzz/corpus/monitor/.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <string_view>
#include <unistd.h>

#include "engine/trace.h"
#include "formats/ucir/ucir_writer.h"
#include "tools/ttd/monitor_args.h"
#include "tools/ttd/query_monitor.h"

namespace {

using namespace ttd;

[[noreturn]] void fail(const char* what) {
  (void)what;
  __builtin_trap();
}

std::filesystem::path g_dir;

void remove_dir() {
  std::error_code ec;
  if (!g_dir.empty()) std::filesystem::remove_all(g_dir, ec);
}

// 40 loop iterations of 4 steps: registers, a memory write per iteration
// (so history, executions and search all find something), over two pages.
std::shared_ptr<const Trace> make_trace() {
  char tmpl[] = "/tmp/fuzz_monitor.XXXXXX";
  if (!::mkdtemp(tmpl)) std::abort();
  g_dir = tmpl;
  std::atexit(remove_dir);
  std::string path = (g_dir / "loop.ucir").string();
  const ArchDesc& arch = arch_desc(ArchId::X86_64);
  auto reg = [&](const char* name) { return *arch.find(name); };
  auto created = fmt::UcirWriter::create(path, ArchId::X86_64);
  if (!created) std::abort();
  fmt::UcirWriter& w = **created;
  w.begin_keyframe();
  w.reg_u64(reg("rsp"), 0x7ff000);
  w.mem_map(0x401000, 0x1000, 5, "loop");
  w.mem_write(0x401000, std::vector<uint8_t>(0x20, 0x90));
  w.mem_map(0x402000, 0x2000, 3, "data");
  w.end_keyframe();
  for (uint64_t i = 0; i < 40; ++i) {
    w.begin_frame();
    w.jmp(0x401000, 0x10);
    w.reg_u64(reg("rax"), i);
    w.step(3);
    uint8_t value[8] = {uint8_t(i), 0xab, 0xcd, 0, 0, 0, 0, uint8_t(i * 7)};
    w.mem_write(0x402ffc + (i % 3) * 8, value);  // crosses the page at 0x403000
    w.step(3);
    w.step(4);
    w.step(2);
  }
  if (!w.close()) std::abort();
  OpenOptions opts;
  opts.index_path = (g_dir / "loop.ttdidx").string();
  opts.keyframe_interval = 16;  // several chunks
  auto t = Trace::open(path, opts);
  if (!t) std::abort();
  return *t;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static std::shared_ptr<const Trace> trace = make_trace();
  if (size == 0 || size > 4096) return 0;
  const uint8_t control = data[0];
  std::string_view command(reinterpret_cast<const char*>(data) + 1, size - 1);

  // The parser alone, with a syntax like the commands'.
  cli::MonitorSyntax syntax{{"--at", "--limit", "--from"}, {"--json", "--first"}, 2};
  auto parsed = cli::parse_monitor_args(command, syntax, "fuzz");
  if (parsed) {
    if (parsed->positional.size() > 2) fail("more positional words than allowed");
    for (const auto& [name, value] : parsed->options)
      if (!syntax.options.count(name)) fail("an option the syntax does not have");
  } else if (parsed.error().to_string().find("fuzz") == std::string::npos) {
    fail("a parse error that does not name the command");
  }

  // The dispatch, as EngineTarget::monitor splits the line.
  size_t polls = 0, lines = 0, bytes = 0;
  const size_t refuse_after = (control >> 1) & 3 ? size_t((control >> 1) & 3) * 3 : SIZE_MAX;
  gdb::MonitorOutput out = [&](std::string_view text) {
    bytes += text.size();
    if (bytes > (size_t(1) << 24)) fail("unbounded output");
    return ++lines < refuse_after;
  };
  InterruptCheck interrupted = [&] { return (control & 1) && ++polls > 3; };
  size_t blank = command.find_first_not_of(' ');
  if (blank == std::string_view::npos) return 0;
  command.remove_prefix(blank);
  std::string_view verb = command.substr(0, command.find(' '));
  std::string_view rest = command.substr(verb.size());
  uint64_t here = (control >> 3) % (trace->step_count() + 1);
  auto reply = cli::run_query_monitor(trace, here, verb, rest, out, interrupted);
  if (reply && !reply->ok && !reply->output.starts_with("error: ")) fail("a failure without 'error: '");
  return 0;
}
