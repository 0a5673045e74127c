// record_image(): wires the pieces together for one program image. ELF ->
// emulator with the process loaded -> keyframe -> run under hooks ->
// summary. record() (recording_chain.cpp) chains images across execve.
#include "tools/recorder/recorder.h"

#include <unicorn/unicorn.h>

#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <ctime>
#include <climits>
#include <cstdlib>
#include <filesystem>
#include <memory>

#include "formats/ucir/ucir_writer.h"
#include "tools/recorder/cpuid_fixup.h"
#include "tools/recorder/elf_image.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/guest_memory.h"
#include "tools/recorder/host_signal_forwarding.h"
#include "tools/recorder/linux_kernel.h"
#include "tools/recorder/process_loader.h"
#include "tools/recorder/recording_chain.h"
#include "tools/recorder/recording_session.h"
#include "tools/recorder/register_tracker.h"
#include "tools/recorder/trace_emitter.h"
#include "tools/recorder/trace_mirror.h"

namespace ttd::rec {

namespace {

// How a run ended, in the words of the summary and of the trace's end
// record; empty if it did not end (a followed fork's parent side). `E`:
// SessionResult or RecordSummary, which name these fields alike.
template <class E>
std::string ending_text(const E& e) {
  if (e.fault) return "stopped: emulator fault: " + *e.fault;
  if (e.deadlock) return "stopped: deadlock: " + *e.deadlock;
  if (e.signal) return "program killed by signal " + std::to_string(e.signal);
  if (e.exited) return "program exited with status " + std::to_string(e.exit_code);
  if (e.hit_max_steps) return "stopped at the --max-steps limit; the program had not exited";
  return "";
}

struct UcClose {
  void operator()(uc_engine* uc) const { uc_close(uc); }
};
using UcPtr = std::unique_ptr<uc_engine, UcClose>;

// CPU time of the calling (emulator) thread: what the recording costs on
// its critical path, whatever else the machine is doing.
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) / 1e9;
}

constexpr const char* kDefaultAarch64Sysroot = "/usr/aarch64-linux-gnu";

}  // namespace

Result<ImageResult> record_image(const RecordOptions& opts, ImageSpec spec) {
  const std::string& program = spec.program;
  const std::string& exe = spec.exe;
  std::string output = spec.output;
  auto elf = load_elf(program);
  if (!elf) return elf.error();
  auto guest_r = guest_arch(elf->arch);
  if (!guest_r) return make_error(spec.argv.empty() ? program : spec.argv[0], guest_r.error().message);
  const GuestArch& guest = **guest_r;
  const ArchDesc& arch = arch_desc(elf->arch);

  uc_engine* raw = nullptr;
  if (uc_err err = uc_open(uc_arch(arch.uc_arch), uc_mode(arch.uc_mode), &raw); err != UC_ERR_OK)
    return make_error("emulator", std::string("cannot start Unicorn for ") + arch.name + ": " + uc_strerror(err));
  UcPtr uc(raw);
  size_t page_size = 4096;
  uc_query(uc.get(), UC_QUERY_PAGE_SIZE, &page_size);
  // Unicorn's AArch64 works in 1 KiB pages; Linux (and AT_PAGESZ, mmap
  // alignment, ld.so's segment arithmetic) in 4 KiB ones.
  page_size = std::max<size_t>(page_size, 4096);
  if (auto st = guest.prepare_cpu(uc.get()); !st) return st.error();

  CpuidFixup cpuid;
  if (elf->arch == ArchId::X86_64)
    if (auto st = cpuid.install(uc.get()); !st) return st.error();

  GuestMemory mem(uc.get(), page_size);
  std::string sysroot = opts.sysroot;
  if (sysroot.empty() && elf->arch == ArchId::AArch64 && !elf->interp.empty()) sysroot = kDefaultAarch64Sysroot;
  auto proc = load_process(uc.get(), mem, guest, *elf, spec.argv, spec.env,
                           spec.execfn.empty() ? program : spec.execfn, sysroot);
  if (!proc) return proc.error();
  // A dynamically linked program starts in ld.so; if ld.so exits before
  // the program's entry ran (a library is missing), nothing was recorded
  // of the program itself.
  bool reached_entry = proc->interp.empty() || !spec.first;
  uc_hook entry_hook = 0;
  if (!reached_entry) {
    auto on_entry = +[](uc_engine*, uint64_t, uint32_t, void* flag) { *static_cast<bool*>(flag) = true; };
    if (uc_hook_add(uc.get(), &entry_hook, UC_HOOK_CODE, (void*)on_entry, &reached_entry, proc->program_entry,
                    proc->program_entry) != UC_ERR_OK)
      return make_error("emulator", "cannot install the program-entry hook");
  }

  RegisterTracker tracker;
  if (auto st = tracker.init(uc.get(), arch, guest); !st) return st.error();
  tracker.load_all();

  // Ops are encoded in the hooks; snappy, checksums and I/O (most of a
  // writer's time) run on the writer's own thread.
  auto created = [&] {
    ForwardedSignalsBlocked in_writer_thread;  // signals from outside go to this thread
    return fmt::UcirWriter::create(output, elf->arch, "linux", /*compress_in_background=*/true);
  }();
  if (!created) return created.error();
  std::unique_ptr<fmt::UcirWriter> writer = std::move(*created);
  std::unique_ptr<TraceMirror> mirror;
  if (opts.verify) mirror = std::make_unique<TraceMirror>(arch);
  TraceEmitter emitter(*writer, mem, mirror.get());
  emitter.keyframe(tracker);

  ProcessConfig cfg;
  cfg.exe_path = exe;
  cfg.execfn = spec.execfn.empty() ? program : spec.execfn;
  cfg.brk_base = proc->brk_base;
  cfg.stdin_data = opts.stdin_data;
  cfg.capture_output = opts.capture_output;
  cfg.sysroot = sysroot;
  cfg.proc_self = proc->proc_self;
  cfg.epoch_seconds = opts.epoch_seconds;
  cfg.epoch_nanoseconds = opts.epoch_nanoseconds % 1000000000u;
  cfg.follow_fork = opts.follow_fork;
  cfg.recorder_pid = spec.recorder_pid ? spec.recorder_pid : uint64_t(::getpid());
  cfg.pid = opts.pid ? opts.pid : cfg.recorder_pid;
  if (spec.first) cfg.inherit_fds = opts.inherit_fds;  // later images keep their table (ExecCarry)
  cfg.ignored_signals = spec.first ? spec.ignored_signals : 0;
  LinuxKernel kernel(uc.get(), mem, guest, cfg);
  kernel.inherit(std::move(spec.carry));
  ImageResult ir;

  RecordSummary sum;
  sum.arch = elf->arch;
  SessionResult res;
  {
    RecordingSession session(uc.get(), arch, guest, mem, kernel, tracker, emitter, opts, mirror.get(),
                             sum.verify_errors);
    if (auto st = session.install_hooks(); !st) return st.error();
    session.set_clock_base(spec.clock_base);
    auto t0 = std::chrono::steady_clock::now();
    double c0 = thread_cpu_seconds();
    // A guest write to a pipe whose reader is gone (a child that exited)
    // must fail with EPIPE and give the guest its SIGPIPE
    // (linux_kernel.cpp), not kill the recorder with its trace half written.
    struct sigaction ignore_pipe {}, old_pipe {};
    ignore_pipe.sa_handler = SIG_IGN;
    ::sigaction(SIGPIPE, &ignore_pipe, &old_pipe);
    res = session.run(proc->entry);
    while (res.forked_child_pc) {
      // A followed fork's child (recording_chain.h): the parent's writer
      // (its thread, its file) is the parent's: left untouched, never
      // closed here. The child's trace starts with its whole state.
      (void)writer.release();
      ir.forked_child = true;
      output = child_trace_name(opts.output, ::getpid());
      auto child_writer = [&] {
        ForwardedSignalsBlocked in_writer_thread;
        return fmt::UcirWriter::create(output, elf->arch, "linux", true);
      }();
      if (!child_writer) {
        if (opts.notice)
          opts.notice("cannot record child " + std::to_string(::getpid()) + ": " + child_writer.error().to_string());
        ::_exit(127);
      }
      writer = std::move(*child_writer);
      emitter.rebind(*writer);
      tracker.load_all();
      emitter.keyframe(tracker);
      if (opts.notice) opts.notice("fork: child " + std::to_string(::getpid()) + " recorded in " + output);
      session.restart_counting();
      // The child's figures start at its fork: its thread CPU clock did
      // (the parent's c0 gave a negative CPU time).
      t0 = std::chrono::steady_clock::now();
      c0 = thread_cpu_seconds();
      res = session.run(*res.forked_child_pc);
    }
    ir.clock_end = session.clock_steps();
    // However the process ended (an exit wrote them already; a fault or a
    // fatal signal did not), its stores in shared file mappings reach the files.
    kernel.write_back_shared_mappings();
    ::sigaction(SIGPIPE, &old_pipe, nullptr);
    sum.cpu_seconds = thread_cpu_seconds() - c0;
    sum.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  }
  // The trace's end record says how it ended (`ttd info` shows it).
  const std::string ending =
      res.exec ? "execve " + res.exec->requested + ": the recording goes on in the next trace"
               : ending_text(res);
  if (auto st = writer->close(ending); !st) return st.error();
  if (entry_hook) uc_hook_del(uc.get(), entry_hook);
  auto fail = [&](std::string what) -> Result<ImageResult> {
    std::error_code ec;
    std::filesystem::remove(output, ec);
    return make_error(spec.argv.empty() ? program : spec.argv[0], std::move(what));
  };
  if (res.strict_stop) return fail("unsupported " + *res.strict_stop + " (--strict; no trace written)");
  if (!reached_entry && res.exited && !res.fault) {
    std::string why = kernel.captured_stderr();
    while (!why.empty() && why.back() == '\n') why.pop_back();
    return fail("the dynamic loader " + proc->interp + " exited with status " + std::to_string(res.exit_code) +
                " before the program started (a missing library?)" +
                (why.empty() ? std::string(opts.capture_output ? "" : "; see its message above") : ": " + why) +
                "; no trace written");
  }

  sum.traces.push_back({output, program, res.steps});
  sum.steps = res.steps;
  sum.syscalls = res.syscalls;
  sum.exited = res.exited;
  sum.exit_code = res.exit_code;
  sum.signal = res.signal;
  sum.signal_from_outside = res.signal && (kernel.signals_from_outside() & sig_bit(res.signal));
  sum.hit_max_steps = res.hit_max_steps;
  sum.fault = res.fault;
  sum.deadlock = res.deadlock;
  sum.threads = res.threads;
  for (const auto& [num, u] : kernel.unsupported()) sum.unsupported.push_back({num, u.name, u.count});
  sum.captured_stdout = kernel.captured_stdout();
  sum.captured_stderr = kernel.captured_stderr();
  if (mirror) {
    sum.verify_register_mismatches = res.register_mismatches;
    sum.verify_memory_mismatches = mirror->check_memory(mem, sum.verify_errors);
    sum.verify_register_misses = res.register_misses;
  }
  if (res.exec) {
    ir.exec = std::move(res.exec);
    ir.carry = kernel.hand_over_for_exec();
  }
  ir.output = output;
  ir.sum = std::move(sum);
  return ir;
}

std::string describe(const RecordSummary& s) {
  std::string out = "recorded " + std::to_string(s.steps) + " steps (" + std::to_string(s.syscalls) +
                    " syscalls, " + arch_desc(s.arch).name +
                    (s.threads > 1 ? ", " + std::to_string(s.threads) + " threads" : std::string()) + ")";
  if (s.seconds > 0) {
    char buf[64];
    uint64_t all_steps = s.traces.size() > 1 ? 0 : s.steps;  // the times are the whole chain's
    for (size_t i = 0; s.traces.size() > 1 && i < s.traces.size(); ++i) all_steps += s.traces[i].steps;
    std::snprintf(buf, sizeof buf, " in %.2f s (%.1f M steps/s; emulator thread %.2f s CPU)", s.seconds,
                  all_steps / s.seconds / 1e6, s.cpu_seconds);
    out += buf;
  }
  out += "\n";
  if (s.traces.size() > 1) {
    out += "through execve, " + std::to_string(s.traces.size()) +
           " traces (the figures above: the last; CPU and time: all):\n";
    for (const RecordedTrace& t : s.traces)
      out += "  " + t.path + ": " + t.program + ", " + std::to_string(t.steps) + " steps\n";
  }
  if (const std::string e = ending_text(s); !e.empty()) out += e + "\n";
  for (const auto& u : s.unsupported)
    out += "unsupported syscall " + std::to_string(u.number) + " (" + u.name + ") called " +
           std::to_string(u.count) + (u.count == 1 ? " time\n" : " times\n");
  return out;
}

}  // namespace ttd::rec
