// A small Linux kernel for one guest process and its threads: answers its
// syscalls against GuestMemory, emulated stdin/stdout/stderr and the
// host's files (opened, read and written on the host as the program asks:
// the recorder is not a sandbox), and
// keeps a list of what it changed in guest memory so the trace can carry
// it as the syscall's effects. Time, random bytes and (with a fixed
// ProcessConfig::pid) pids are deterministic so that recording the same
// program twice gives the same trace.
#pragma once
#include <poll.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tools/recorder/futex_calls.h"
#include "tools/recorder/guest_arch.h"
#include "tools/recorder/guest_execve.h"
#include "tools/recorder/guest_fd_table.h"
#include "tools/recorder/guest_memory.h"
#include "tools/recorder/guest_signals.h"
#include "tools/recorder/guest_threads.h"
#include "tools/recorder/mapped_file_ranges.h"
#include "tools/recorder/outside_fds.h"
#include "tools/recorder/poll_calls.h"
#include "tools/recorder/proc_self_files.h"
#include "tools/recorder/process_config.h"
#include "tools/recorder/process_timers.h"
#include "tools/recorder/step_timer.h"
#include "tools/recorder/syscall_outcome.h"
#include "tools/recorder/shared_file_mappings.h"
#include "tools/recorder/socket_calls.h"
#include "tools/recorder/vfork_shared_memory.h"

namespace ttd::rec {

struct FrameMemory;

class LinuxKernel {
 public:
  LinuxKernel(uc_engine* uc, GuestMemory& mem, const GuestArch& arch, ProcessConfig cfg);

  // Runs syscall `number`; `steps` (steps so far) drives the virtual clock.
  SyscallOutcome call(uint64_t number, const uint64_t args[6], uint64_t steps);
  // Asked before call(): true if the call must wait (a futex wait whose
  // word still holds the expected value; a read from an empty pipe or a
  // write to a full one, in blocking mode; poll/select with nothing ready
  // and a timeout that is not 0; FUTEX_LOCK_PI on a lock another thread
  // holds); the current thread is then parked, and the caller runs the
  // syscall instruction again once the thread is woken (futex, PI lock
  // handed over, timeout) or a pipe it waits for is ready (after another
  // thread's syscall). Nothing has happened except what effects() then
  // lists (the FUTEX_WAITERS bit a PI lock waiter sets in the lock word),
  // which the caller must put in the trace. `steps` (steps so far) is when
  // the wait began.
  bool blocks(uint64_t number, const uint64_t args[6], uint64_t steps = 0);
  GuestThreads& threads() { return threads_; }
  // What the last call changed in memory (registers are the caller's).
  const std::vector<KernelEffect>& effects() const { return effects_; }
  // True if the last call unmapped, replaced or re-protected memory, so
  // code decoded earlier may no longer be what runs there.
  bool code_may_have_changed() const { return code_may_have_changed_; }

  struct Unsupported {
    std::string name;
    uint64_t count = 0;
  };
  const std::map<uint64_t, Unsupported>& unsupported() const { return unsupported_; }
  // What the last call could not do, when its outcome says `unsupported`.
  const std::string& unsupported_detail() const { return unsupported_what_; }
  const std::string& captured_stdout() const { return out_[0]; }
  const std::string& captured_stderr() const { return out_[1]; }

  // This process is a fork's child, emulated but not recorded
  // (linux_kernel_process.cpp): its pipes block on the host, its pid is
  // the host's.
  bool unrecorded_child() const { return unrecorded_child_; }
  // An unrecorded child with one thread waits on the host in the call
  // itself (pipes, sockets, polls); one with threads parks the waiting
  // thread as the recorded process does, so another runs
  // (RecordingSession::child_switch_threads).
  bool child_waits_on_host() const { return unrecorded_child_ && threads_.live() < 2; }
  // A vfork child about to exec or end: the pages it changed go to its
  // parent, which waits (vfork_shared_memory.h). With `release` (its end,
  // or an exec that cannot fail any more) the gate closes too, so the
  // parent goes on and a later call does nothing. Nothing outside one.
  void return_vfork_memory(bool release);
  // The process ends (or a fault stopped it): what it stored in writable
  // shared mappings of files reaches the files (shared_file_mappings.h).
  void write_back_shared_mappings() { shared_maps_.write_back_all(mem_); }
  // When every thread waits and the process has children (which may make
  // a pipe ready), waits on the host until one of the waited-for pipes is
  // ready and makes its threads runnable; false when there is nothing to
  // wait for on the host (no children, or no thread waits on a pipe).
  // `steps` (steps so far) is when the wait starts; the wait lasts at most
  // until the next timer is due (host_wait_clock.h), which then fires.
  // `within`: at most that many virtual nanoseconds (the first timed
  // poll's end); false if they passed with nothing ready.
  bool wait_for_host_io(uint64_t steps, std::optional<uint64_t> within = std::nullopt);
  // Threads parked on a futex word of memory shared with other processes
  // wake when the word or the processes' count of shared wakes moved
  // (GuestThread::shared_word); true if one did. Asked at each thread
  // switch, and every millisecond while wait_for_host_io waits.
  bool wake_shared_futex_waiters();
  // An unrecorded child whose only thread waits (RecordingSession::
  // wait_in_child): sleeps on the host until the next timer or sleep end
  // is due, or `within` ns pass, as other processes would see it take
  // that long; true if a timer fired or the thread can run.
  bool wait_in_real_time(uint64_t steps, std::optional<uint64_t> within);
  // Every thread is parked, no timer can end a wait, and one waits for a
  // signal (pause, sigsuspend, sigwait with no timeout) or a signal from
  // outside would run a handler (outside_signal_handled: a SIGTERM handler
  // that posts the semaphore main waits on): as natively, sleeps until a
  // signal comes from outside (kill, Ctrl-C), moves the clock on by the
  // wall time slept (from `steps`, as a host wait) and raises it; false
  // otherwise (a futex cycle nothing can end: the recording ends as
  // blocked).
  bool wait_for_outside_signal(uint64_t steps);
  bool outside_signal_handled();
  // At every thread switch (linux_kernel_socket_waits.cpp): threads
  // waiting on sockets that another process makes ready are made runnable
  // when the host says they are; when no thread can run it waits on the
  // host for them (at most the shortest poll timeout among them). One
  // test and return while the program has made no socket.
  void poll_outside_io(uint64_t steps);

  // execve/execveat of the recorded process passed Linux's checks
  // (guest_execve.h): what to load next. The caller ends this image's
  // trace at the call and starts the next one (recording_chain.h).
  std::optional<ExecTarget> take_exec() {
    auto x = std::move(exec_);
    exec_.reset();
    return x;
  }
  // linux_kernel_exec.cpp: what the next image keeps, taken out of this
  // kernel (close-on-exec descriptors closed first), and given to the
  // next image's kernel before its first step.
  std::unique_ptr<ExecCarry> hand_over_for_exec();
  void inherit(std::unique_ptr<ExecCarry> carry);
  // linux_kernel_signals.cpp: delivery (docs/recording.md, "Signals").
  // The current thread's deliverable signals with handlers get their
  // frames, nested as Linux nests them; the writes join effects() and the
  // registers are the handler's. The pc to go on at, or nullopt (none, or
  // frame_failed(): the stack could not take the frame, Linux's SIGSEGV).
  std::optional<uint64_t> deliver_signals(uint64_t resume_pc);
  // A CPU fault at `pc` (the pc Linux reports): the handler's pc with its
  // frame built (effects() holds only its writes), or nullopt when the
  // default action applies (no handler, or the signal is blocked).
  std::optional<uint64_t> deliver_fault(const SigInfo& info, uint64_t pc, const FaultTrap& trap);
  // Whether a fault raising `sig` would run a handler (one is installed
  // and the current thread does not block the signal).
  bool fault_handled(int sig);
  // A thread is about to run at `pc`: what a syscall's end would deliver
  // (effects() holds only the frame's writes); `out` says if a fatal
  // signal ended the process instead.
  std::optional<uint64_t> deliver_on_schedule(uint64_t pc, uint64_t steps, SyscallOutcome& out);
  bool frame_failed() const { return frame_failed_; }
  // Interval timers (alarm, setitimer), POSIX timers and timerfds count
  // the virtual clock's nanoseconds (one a step, plus the host waits: the
  // clock is ahead of the steps by clock_ahead()): the step at which the
  // next one expires (~0: none armed). The steps given to the kernel are
  // the chain's (RecordingSession::clock_steps).
  uint64_t timer_due() const { return timers_.due_step(); }
  uint64_t clock_ahead() const { return clock_ahead_; }
  // Raises the signals of the timers due at `steps` and counts timerfd
  // expirations; with `skip_ahead` (every thread waits, and sleeping takes
  // no steps) the armed ones fire in order, now, until one wakes a thread.
  // True if one fired (with `skip_ahead`: if a thread can run).
  // `until`: with `skip_ahead`, only the timers due by then fire.
  bool fire_timers(uint64_t steps, bool skip_ahead, uint64_t until = ~uint64_t(0));
  // A fork's unrecorded child ran a thread's turn, where no steps are
  // counted: its clock moves on by the wall time since `since`
  // (steady_ns()), and the timers, sleeps and timed waits that fell due
  // meanwhile fire.
  void child_turn_ran(uint64_t since);
  static uint64_t steady_ns();
  GuestSignals& signals() { return signals_; }
  // Signals sent to the recorder from outside (host_signal_forwarding.h)
  // become process-directed guest signals (SI_USER, the sender's pid);
  // true if one came. Called at syscall ends and block boundaries.
  bool raise_host_signals();
  // Which signals came that way so far (bit sig-1).
  uint64_t signals_from_outside() const { return from_outside_; }

 private:
  // Syscall families in classes of their own, which reach guest memory,
  // the descriptors, threads and signals through this kernel.
  friend class FutexCalls;
  friend class OutsideFds;
  friend class PollCalls;
  friend class ProcSelfFiles;
  friend class ProcessTimers;
  friend class SocketCalls;

  // Memory access on behalf of the guest: false = EFAULT.
  bool copy_to_user(uint64_t addr, std::span<const uint8_t> bytes);
  bool copy_from_user(uint64_t addr, std::span<uint8_t> out);
  std::optional<std::string> read_c_string(uint64_t addr, size_t max = 4096);
  bool put_u64s(uint64_t addr, std::initializer_list<uint64_t> values);
  bool put_u32s(uint64_t addr, std::initializer_list<uint32_t> values);
  // Writes guest memory whatever its protection (file mappings), as effects.
  void record_raw_write(uint64_t addr, std::span<const uint8_t> bytes);
  // Writes guest memory (no protection check) and records the write as an
  // effect of the current syscall; false when the memory is not mapped.
  bool write_recorded(uint64_t addr, std::span<const uint8_t> bytes);
  // The path argument of a *at call, or -EFAULT / -ENAMETOOLONG.
  // Absolute paths found under ProcessConfig::sysroot get it prepended.
  int64_t read_path(uint64_t addr, std::string& out);

  // One file per family: linux_kernel_mm.cpp (memory), linux_kernel_io.cpp
  // (files and descriptors), linux_kernel.cpp (process, time, signals).
  int64_t sys_brk(uint64_t addr);
  int64_t sys_mmap(const uint64_t a[6]);
  // A writable shared mapping of a file in /dev/shm: the host's pages.
  int64_t mmap_host_shared(uint64_t addr, uint64_t size, uint8_t prot, const GuestFd& file, uint64_t offset);
  int64_t sys_mremap(uint64_t old_addr, uint64_t old_len, uint64_t new_len, uint64_t flags, uint64_t new_addr);
  int64_t move_mapping(uint64_t old_addr, uint64_t old_size, uint64_t new_addr, uint64_t new_size, uint8_t prot,
                       const std::string& name);
  // Writes the runs of non-zero pages of `contents` at addr, as effects.
  void record_nonzero_pages(uint64_t addr, std::span<const uint8_t> contents);
  int64_t sys_munmap(uint64_t addr, uint64_t len);
  int64_t sys_msync(uint64_t addr, uint64_t len, uint64_t flags);
  int64_t sys_madvise(uint64_t addr, uint64_t len, uint64_t advice);
  int64_t sys_mprotect(uint64_t addr, uint64_t len, uint64_t prot);
  // linux_kernel_file_coherence.cpp: a write to a file the process maps
  // (at: its offset, nullopt: the descriptor's position) reaches the
  // mappings at its end; a read first gets the program's stores through
  // shared writable mappings of the file.
  std::optional<MappedFileWrite> mapped_write_begins(const GuestFd& f, std::optional<uint64_t> at, uint64_t len);
  void mapped_write_ends(MappedFileWrite& w, int64_t written);
  void mapped_read_begins(const GuestFd& f);
  // The current thread, just parked in a timed wait, times out when the
  // virtual clock reaches `end` (GuestThread::wait_end); nullopt: no end.
  void end_wait_at(std::optional<uint64_t> end);
  bool io_blocks(bool write, int fd, uint64_t buf, uint64_t count, bool vectored);
  // Threads waiting on pipes whose descriptor became ready run again.
  void wake_io_waiters();
  int64_t sys_read(int fd, uint64_t buf, uint64_t len);
  int64_t sys_write(int fd, uint64_t buf, uint64_t len);
  int64_t sys_iov(bool write, int fd, uint64_t iov, uint64_t count);
  int64_t sys_fstat(int fd, uint64_t buf, uint64_t steps);
  int64_t sys_newfstatat(int dirfd, uint64_t path, uint64_t buf, uint64_t flags, uint64_t steps);
  int64_t sys_ioctl(int fd, uint64_t request, uint64_t arg);
  int64_t sys_readlink(int dirfd, uint64_t path, uint64_t buf, uint64_t size);
  // linux_kernel_files.cpp: paths and descriptors on the host.
  int64_t sys_openat(int dirfd, uint64_t path, uint64_t flags, uint64_t mode);
  int64_t sys_memfd_create(uint64_t name, uint64_t flags);
  int64_t sys_close(int fd);
  int64_t sys_close_range(uint64_t first, uint64_t last, uint64_t flags);
  int64_t sys_pread(bool write, int fd, uint64_t buf, uint64_t len, int64_t offset);
  int64_t sys_lseek(int fd, int64_t offset, uint64_t whence);
  int64_t sys_statx(int dirfd, uint64_t path, uint64_t flags, uint64_t mask, uint64_t buf);
  int64_t sys_faccessat(int dirfd, uint64_t path, uint64_t mode, uint64_t flags);
  int64_t sys_getdents64(int fd, uint64_t buf, uint64_t len);
  int64_t sys_getcwd(uint64_t buf, uint64_t size);
  int64_t sys_chdir(uint64_t path);
  int64_t sys_fchdir(int fd);
  int64_t sys_fcntl(int fd, uint64_t cmd, uint64_t arg);
  int64_t sys_pipe2(uint64_t fds, uint64_t flags);
  int64_t sys_unlinkat(int dirfd, uint64_t path, uint64_t flags);
  int64_t host_stat(const struct stat& hs, uint64_t buf);
  // linux_kernel_fsinfo.cpp: statfs and extended attributes.
  enum class XattrCall : uint8_t { Get, LGet, FGet, List, LList, FList };
  int64_t sys_statfs(bool by_fd, uint64_t path_or_fd, uint64_t buf);
  int64_t sys_xattr(XattrCall kind, uint64_t target, uint64_t name, uint64_t buf, uint64_t size);
  // A host path for a guest path: absolute as is, relative under the
  // guest's working directory.
  std::string host_path(const std::string& p) const;
  int host_open_flags(uint64_t guest_flags) const;
  // linux_kernel.cpp: more process calls.
  int64_t sys_prctl(uint64_t option, uint64_t arg2);
  int64_t sys_sysinfo(uint64_t buf, uint64_t steps);
  int64_t sys_sched_getaffinity(uint64_t pid, uint64_t size, uint64_t mask);
  int64_t sys_getrandom(uint64_t buf, uint64_t len);
  int64_t sys_uname(uint64_t buf);
  int64_t sys_clock_gettime(uint64_t clock, uint64_t ts, uint64_t steps);
  int64_t sys_prlimit(uint64_t resource, uint64_t new_limit, uint64_t old_limit);
  int64_t sys_priority(bool set, uint64_t which, int64_t who, int64_t prio);
  int64_t sys_getrusage(int64_t who, uint64_t buf);
  int64_t sys_times(uint64_t buf);
  int64_t sys_sched_query(Sys which, int64_t arg, uint64_t buf);
  int64_t sys_rt_sigaction(uint64_t sig, uint64_t act, uint64_t oact, uint64_t setsize);
  int64_t sys_rt_sigprocmask(uint64_t how, uint64_t set, uint64_t oset, uint64_t setsize);
  int64_t sys_arch_prctl(uint64_t code, uint64_t addr);
  // linux_kernel_signals.cpp.
  // Process-directed, from the process itself: SI_USER, or the code,
  // pid, uid and value of `given` (sigqueue, pidfd_send_signal with a siginfo).
  int64_t signal_self(uint64_t sig, SyscallOutcome& out, const SigInfo* given = nullptr);
  int64_t signal_thread(uint64_t tid, uint64_t sig);        // tkill, tgkill
  SigAction action(int sig) const;
  bool ignored(int sig) const;
  uint64_t ignored_set() const;  // the signals ignored(sig) says, as bits (sig_bit)
  void map_sigreturn_page();
  int64_t sys_sigaltstack(uint64_t ss, uint64_t old_ss);
  int64_t sys_rt_sigpending(uint64_t set, uint64_t setsize);
  bool sigsuspend_blocks(const uint64_t a[6]);
  bool sigtimedwait_blocks(const uint64_t a[6]);
  bool pause_blocks();
  // linux_kernel_timers.cpp: nanosleep / clock_nanosleep (`flags`
  // TIMER_ABSTIME) of a thread alone (sleep_blocks parks one of several):
  // the clock moves on by the time asked; a timer due before then whose
  // signal the thread takes ends the sleep there with EINTR (what is left
  // in `rem`).
  int64_t sys_clock_nanosleep(uint64_t clock, uint64_t flags, uint64_t req, uint64_t rem, uint64_t steps);
  // linux_kernel_sleeps.cpp. The virtual clock's ns at which a sleep that
  // starts at `now` ends: 0, or -errno for the guest (bad clock, request).
  int64_t sleep_end(uint64_t clock, uint64_t flags, uint64_t req, uint64_t now, uint64_t& until);
  // With several threads a sleep parks its thread until the clock reaches
  // its end (GuestThreads::sleep), so the others run meanwhile; alone, it
  // is sys_clock_nanosleep's jump.
  bool sleep_blocks(Sys sys, const uint64_t a[6], uint64_t steps);
  // nanosleep, clock_nanosleep: 0 for a parked sleep that reached its end,
  // else sys_clock_nanosleep.
  int64_t sys_sleep(Sys sys, const uint64_t a[6], uint64_t steps);
  // A parked sleep a signal ended (call() answers EINTR): the time left
  // goes to `rem` (relative sleeps), as Linux writes it.
  void end_interrupted_sleep(Sys sys, const uint64_t a[6], SyscallOutcome& out);
  // ProcessTimers::update_due with the clock and the threads' wake times.
  void update_timer_due();
  // The process's CPU time as the recorder counts it: the steps, without
  // the clock's jumps (CLOCK_PROCESS_CPUTIME_ID reads the same).
  uint64_t cpu_clock() const { return now_ > clock_ahead_ ? now_ - clock_ahead_ : 0; }
  // linux_kernel_host_waits.cpp: the virtual clock moves to `now` (never
  // back) after a host wait or to a timer's due time when every thread waits.
  void advance_clock_to(uint64_t now);
  // The clock catches up with `steps` (the chain's steps so far) plus the
  // host waits, before a wait or a delivery that reads it.
  void catch_up_clock(uint64_t steps) { now_ = std::max(now_, steps + clock_ahead_); }
  // poll on the host for at most `own_ns` and until the next timer is due;
  // the clock moves on by the wait (clock_after_host_wait), and the timers
  // due fire. poll's result (-1 with errno EINTR for a forwarded signal);
  // `timer_fired` says if the timer bound passed.
  int host_poll(std::vector<struct pollfd>& p, std::optional<uint64_t> own_ns, bool& timer_fired);
  // A blocking read (POLLIN) or write (POLLOUT) of a host descriptor that
  // is not ready (a terminal, the host's stdin, an inherited pipe; in a
  // fork's unrecorded child, its pipes and sockets too) that blocks() did
  // not park (it runs again at once after a signal from outside): waits
  // in host_poll, so no longer than until the next timer is due; -EINTR
  // when that timer fired first (timer_ended_host_call_: call() restarts
  // or interrupts the call as for a forwarded signal) or a signal came
  // from outside, else 0 and the call goes on.
  int64_t wait_host_ready(int host, short events);
  // A fork's unrecorded child whose poll/select/epoll_wait found nothing
  // ready: waits on the host for the watches' descriptors, at most
  // `timeout` (nullopt: no end), in real time, the timers firing on the
  // way. `rescan` counts what is ready after the host says something is.
  // That count, 0 at the timeout, -EINTR for a signal the thread takes.
  int64_t child_wait_for_fds(const std::vector<IoWatch>& watches, std::optional<uint64_t> timeout,
                             const std::function<int64_t()>& rescan);
  bool timer_ended_host_call_ = false;
  // A host call that blocked `since` (steady_ns()) moves the clock on.
  void note_host_wait(uint64_t since);
  // Whether clock id `clock` is one this host's Linux answers (the _ALARM
  // clocks need an RTC): 0 or -EINVAL.
  static int64_t check_clock(uint64_t clock);
  // The guest's clocks: CLOCK_REALTIME at step 0 is the recording's epoch.
  StepClock step_clock() const;
  // Raises or counts what is due at `steps` (itimers, POSIX timers,
  // timerfds); true if a signal was raised or a timerfd ticked.
  bool fire_due(uint64_t steps);
  // Whether some thread can run (a timer woke one).
  bool any_runnable();
  int64_t sys_rt_sigtimedwait(const uint64_t a[6]);
  std::optional<uint64_t> sys_rt_sigreturn(SyscallOutcome& out);
  FrameMemory frame_memory();
  // The current thread was parked and a signal woke it: the call's answer.
  void interrupted_call(Sys sys, const uint64_t a[6], SyscallOutcome& out);
  // Whether Linux runs the interrupted call again when `act`'s handler
  // returns (syscall_restart.h).
  bool restarts_after(Sys sys, const uint64_t a[6], const SigAction& act) const;
  // After each call: drops ignored signals, ends the process for a fatal
  // one, asks for delivery, wakes a parked thread that must take one.
  void settle_signals(SyscallOutcome& out);
  void interrupt_parked();
  // A host call returned EINTR for a forwarded signal: true if the call
  // runs again at once (nothing the thread takes; Linux's restart), else
  // it returns EINTR, restarted after the handler with SA_RESTART.
  bool restart_after_host_signal(Sys sys, const uint64_t a[6]);
  // SIGCHLD to a handler: the children that exited (their pidfds are
  // readable) and were not announced yet each raise one, and wake a
  // parked thread that takes it; add_sigchld_watches() gives the pidfds
  // to wait for when every thread waits.
  bool sigchld_wanted() const;
  void send_sigchld();
  void add_sigchld_watches(std::vector<struct pollfd>& p) const;
  // linux_kernel_eventfd.cpp: eventfd, eventfd2 and their reads and writes.
  int64_t sys_eventfd(uint64_t initval, uint64_t flags);
  int64_t eventfd_transfer(bool write, const GuestFd& f, uint64_t buf, uint64_t len);
  bool eventfd_blocks(bool write, int fd, const GuestFd& f, uint64_t buf, uint64_t len);
  // A pipe's reads, writes and closes so far (edge-triggered epoll).
  void note_pipe_change(const GuestFd& f) {
    if (f.pipe_id) ++pipe_changes_[f.pipe_id];
  }
  // linux_kernel_threads.cpp.
  int64_t sys_clone(uint64_t flags, uint64_t stack, uint64_t parent_tid, uint64_t child_tid, uint64_t tls,
                    SyscallOutcome& out);
  int64_t sys_clone3(uint64_t args, uint64_t size, SyscallOutcome& out);
  int64_t sys_exit_thread(int code, SyscallOutcome& out);
  // linux_kernel_process.cpp: fork, exec, wait, kill of another process.
  int64_t sys_new_process(uint64_t flags, uint64_t stack, uint64_t parent_tid, uint64_t child_tid, uint64_t tls,
                          SyscallOutcome& out);
  void reset_host_signals();
  void take_vfork_child_writes(const std::vector<ChangedPage>& pages);
  int64_t sys_execve(int dirfd, uint64_t path, uint64_t argv, uint64_t envp, uint64_t flags);
  // linux_kernel_exec.cpp: the recorded process's own execve.
  int64_t exec_recorded(int dirfd, const std::string& path, std::vector<std::string> argv,
                        std::vector<std::string> envp, uint64_t flags);
  int64_t sys_wait4(int64_t pid, uint64_t status, uint64_t options, uint64_t rusage);
  int64_t sys_waitid(uint64_t idtype, uint64_t id, uint64_t infop, uint64_t options, uint64_t rusage);
  int64_t sys_kill(int64_t pid, uint64_t sig, SyscallOutcome& out);
  int64_t process_group_of(int64_t pid, bool session);
  // linux_kernel_pidfd.cpp.
  int64_t sys_pidfd_open(int64_t pid, uint64_t flags);
  int64_t sys_pidfd_send_signal(int fd, uint64_t sig, uint64_t info, uint64_t flags, SyscallOutcome& out);
  int64_t sys_rt_sigqueueinfo(int64_t pid, uint64_t sig, uint64_t info, SyscallOutcome& out);
  bool read_given_siginfo(uint64_t addr, uint8_t (&raw)[128], SigInfo& out);  // false: EFAULT
  // waitid's id as the host takes it: a P_PIDFD descriptor's host one (or -EBADF).
  int64_t host_wait_id(uint64_t idtype, uint64_t id);
  // The host answers for this process's pid (group, session, parent,
  // other processes): a fork's child, or the recorded process when its pid
  // is the recorder's own (ProcessConfig::host_pid).
  bool pid_is_host() const { return pid_ == uint64_t(::getpid()); }
  // getppid: the host's, with the recorder shown as the fixed pid it
  // stands for; the recorded process with a fixed pid: 1.
  uint64_t parent_pid() const;
  // When the host answers for the pid, the recorder's thread takes the
  // program's name (comm_), so other processes see it (ps, pgrep).
  void show_name_on_host() const;
  // linux_kernel_fs_changes.cpp: mkdir, rename, link, chmod, truncate, utimensat ... on the host.
  int64_t sys_fs_change(Sys sys, const uint64_t a[6]);
  int64_t sys_copy_between_files(Sys sys, const uint64_t a[6]);
  int64_t sys_change_xattr(Sys sys, const uint64_t a[6]);  // linux_kernel_fsinfo.cpp
  int64_t read_xattr_name(uint64_t addr, std::string& out);
  // A guest (dirfd, path) as the host's directory (AT_FDCWD for an
  // absolute path) and path; -errno for a bad path or directory. The *at
  // calls (unlinkat, faccessat, the changes above) resolve through it.
  int64_t host_at(int dirfd, uint64_t path_addr, int& dir, std::string& path);
  int64_t host_fd_for_change(uint64_t guest_fd);
  // linux_kernel_ids.cpp: user and group ids, the host's.
  int64_t sys_credentials(Sys sys, const uint64_t a[6]);
  int64_t sys_capget(uint64_t header, uint64_t data);
  int64_t sys_setpgid(int64_t pid, int64_t pgid);
  bool wait_blocks(Sys sys, const uint64_t a[6], uint64_t steps);
  // A blocking wait4/waitid that has nothing to report yet: how to ask the
  // host again (waitid's idtype, id and options) and the pidfds of the
  // children it waits for; nullopt when the call answers at once.
  struct WaitProbe {
    int idtype = 0;   // idtype_t (P_ALL, P_PID, P_PGID, P_PIDFD)
    uint32_t id = 0;  // id_t
    int options = 0, probe = 0;
    std::vector<IoWatch> watches;
  };
  std::optional<WaitProbe> wait_probe(Sys sys, const uint64_t a[6]);
  // A blocking wait4/waitid blocks() did not park: waits on the host for
  // a child to end, until the next timer or a signal from outside
  // (-EINTR); 0 when the host call can run.
  int64_t wait_for_children_on_host(Sys sys, const uint64_t a[6]);
  void forget_child(pid_t pid);
  void note_unsupported(uint64_t number, std::string_view name);

  uc_engine* uc_;
  GuestMemory& mem_;
  const GuestArch& arch_;
  ProcessConfig cfg_;
  uint64_t brk_ = 0;             // current program break
  uint64_t brk_mapped_end_ = 0;  // end of the pages mapped for the heap
  size_t stdin_pos_ = 0;
  GuestFdTable fds_;
  uint64_t next_pipe_id_ = 1;
  std::map<uint64_t, uint64_t> pipe_changes_;  // by GuestFd::pipe_id
  uint32_t umask_ = 022;
  std::string comm_;              // the task's name: execfn's last component, prctl(PR_SET_NAME)
  uint64_t current_ = 0;         // number of the syscall being answered
  GuestSignals signals_;          // masks, pending signals, alternate stacks
  uint64_t sigreturn_page_ = 0;   // AArch64: the rt_sigreturn trampoline (no vDSO), once mapped
  bool restart_call_ = false;     // the interrupted call restarts after the handler (SA_RESTART)
  uint64_t last_number_ = 0, last_args_[6] = {};
  FaultTrap fault_trap_;          // for the frame of the fault being delivered
  bool frame_failed_ = false;
  uint64_t clock_ahead_ = 0;        // virtual clock minus steps: the host waits
  uint64_t now_ = 0;                // the virtual clock at the last call
  ProcessTimers timers_{*this};     // alarm, setitimer, POSIX timers, timerfds and their due times
  SocketCalls sockets_{*this};      // the socket syscalls on host sockets
  FutexCalls futexes_{*this};       // futex, robust lists, PI locks
  PollCalls polls_{*this};          // poll, select, epoll
  ProcSelfFiles proc_self_{*this};  // the guest's own /proc entries
  OutsideFds outside_{*this};       // descriptors another process makes ready
  std::map<uint64_t, std::vector<uint8_t>> sigactions_;  // raw struct sigaction per signal
  uint64_t from_outside_ = 0;       // raise_host_signals so far
  uint64_t random_state_ = 0x9e3779b97f4a7c15ull;
  std::vector<KernelEffect> effects_;
  bool code_may_have_changed_ = false;
  std::map<uint64_t, Unsupported> unsupported_;
  bool unsupported_now_ = false;    // the current call hit something unsupported
  std::string unsupported_what_;    // ... what it was
  std::string out_[2];
  GuestThreads threads_{0};          // the main thread's tid is pid_; thread n has tid pid_ + n - 1
  uint64_t pid_ = 0;                // getpid: ProcessConfig::pid, or the host's in a fork's child
  bool has_children_ = false;       // a fork succeeded: other processes may hold our pipes
  bool unrecorded_child_ = false;   // this is a fork's child
  GuestRlimits rlimits_ = GuestRlimits::of_host();
  SharedFileMappings shared_maps_;  // MAP_SHARED mappings of files open for writing
  MappedFileRanges mapped_files_;   // every file mapping, for writes to the files (linux_kernel_file_coherence.cpp)
  int vfork_gate_ = -1;              // in a vfork child: the write end its parent waits on
  VforkPageHashes vfork_pages_;     // ... and the child's writable pages when it started
  std::optional<ExecTarget> exec_;  // set by a successful exec_recorded
  std::set<pid_t> chld_sent_;        // children whose exit raised SIGCHLD already
  std::map<pid_t, int> children_;   // children not yet reaped -> a pidfd of each (host fds)
};

}  // namespace ttd::rec
