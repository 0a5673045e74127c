// AArch64 syscall numbers (the generic table, include/uapi/asm-generic/
// unistd.h). Entries with Sys::Unsupported are here only so reports can
// name them.
#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

const SyscallTable& syscall_table_aarch64() {
  using S = Sys;
  constexpr S U = S::Unsupported;
  static const SyscallTable table{
      {17, {S::Getcwd, "getcwd"}},              {23, {S::Dup, "dup"}},
      {24, {S::Dup3, "dup3"}},                {25, {S::Fcntl, "fcntl"}},
      {29, {S::Ioctl, "ioctl"}},        {34, {U, "mkdirat"}},
      {35, {S::Unlinkat, "unlinkat"}},            {46, {U, "ftruncate"}},
      {48, {S::Faccessat, "faccessat"}},           {49, {S::Chdir, "chdir"}},
      {56, {S::Openat, "openat"}},              {57, {S::Close, "close"}},
      {59, {S::Pipe2, "pipe2"}},               {61, {S::Getdents64, "getdents64"}},
      {62, {S::Lseek, "lseek"}},        {63, {S::Read, "read"}},
      {64, {S::Write, "write"}},        {65, {S::Readv, "readv"}},
      {66, {S::Writev, "writev"}},      {67, {S::Pread64, "pread64"}},
      {68, {S::Pwrite64, "pwrite64"}},            {72, {S::Pselect6, "pselect6"}},
      {73, {S::Ppoll, "ppoll"}},               {78, {S::Readlinkat, "readlinkat"}},
      {79, {S::Newfstatat, "newfstatat"}}, {80, {S::Fstat, "fstat"}},
      {82, {U, "fsync"}},               {93, {S::Exit, "exit"}},
      {94, {S::ExitGroup, "exit_group"}}, {95, {S::Waitid, "waitid"}},
      {96, {S::SetTidAddress, "set_tid_address"}}, {98, {S::Futex, "futex"}},
      {99, {S::SetRobustList, "set_robust_list"}}, {101, {S::Nanosleep, "nanosleep"}},
      {103, {S::Setitimer, "setitimer"}}, {102, {S::Getitimer, "getitimer"}},          {113, {S::ClockGettime, "clock_gettime"}},
      {114, {S::ClockGetres, "clock_getres"}}, {115, {S::ClockNanosleep, "clock_nanosleep"}},
      {122, {U, "sched_setaffinity"}},  {123, {S::SchedGetaffinity, "sched_getaffinity"}},
      {124, {S::SchedYield, "sched_yield"}}, {129, {S::Kill, "kill"}},
      {130, {S::Tkill, "tkill"}},       {131, {S::Tgkill, "tgkill"}},
      {132, {S::Sigaltstack, "sigaltstack"}},
      {136, {S::RtSigpending, "rt_sigpending"}}, {137, {S::RtSigtimedwait, "rt_sigtimedwait"}},
      {133, {S::RtSigsuspend, "rt_sigsuspend"}}, {134, {S::RtSigaction, "rt_sigaction"}},
      {135, {S::RtSigprocmask, "rt_sigprocmask"}}, {139, {S::RtSigreturn, "rt_sigreturn"}},
      {153, {U, "times"}},              {160, {S::Uname, "uname"}},
      {163, {S::Getrlimit, "getrlimit"}}, {165, {U, "getrusage"}},
      {166, {S::Umask, "umask"}},              {167, {S::Prctl, "prctl"}},
      {168, {U, "getcpu"}},             {169, {S::Gettimeofday, "gettimeofday"}},
      {172, {S::Getpid, "getpid"}},     {173, {S::Getppid, "getppid"}},
      {174, {S::Getuid, "getuid"}},     {175, {S::Geteuid, "geteuid"}},
      {176, {S::Getgid, "getgid"}},     {177, {S::Getegid, "getegid"}},
      {178, {S::Gettid, "gettid"}},     {179, {S::Sysinfo, "sysinfo"}},
      {198, {S::Socket, "socket"}},             {214, {S::Brk, "brk"}},
      {215, {S::Munmap, "munmap"}},     {216, {S::Mremap, "mremap"}},
      {220, {S::Clone, "clone"}},       {221, {S::Execve, "execve"}},
      {281, {S::Execveat, "execveat"}},
      {222, {S::Mmap, "mmap"}},         {226, {S::Mprotect, "mprotect"}},
      {227, {U, "msync"}},              {233, {S::Madvise, "madvise"}},
      {260, {S::Wait4, "wait4"}},              {261, {S::Prlimit64, "prlimit64"}},
      {278, {S::Getrandom, "getrandom"}}, {283, {U, "membarrier"}},
      {291, {S::Statx, "statx"}},              {293, {S::Rseq, "rseq"}},
      {435, {S::Clone3, "clone3"}},             {439, {S::Faccessat2, "faccessat2"}},
      {50, {S::Fchdir, "fchdir"}},      {148, {S::Getresuid, "getresuid"}},
      {150, {S::Getresgid, "getresgid"}}, {223, {S::Fadvise64, "fadvise64"}},
      {43, {S::Statfs, "statfs"}},      {44, {S::Fstatfs, "fstatfs"}},
      {8, {S::Getxattr, "getxattr"}},   {9, {S::Lgetxattr, "lgetxattr"}},
      {100, {S::GetRobustList, "get_robust_list"}},
      {19, {S::Eventfd2, "eventfd2"}}, {20, {S::EpollCreate1, "epoll_create1"}},
      {21, {S::EpollCtl, "epoll_ctl"}}, {22, {S::EpollPwait, "epoll_pwait"}},
      {441, {S::EpollPwait2, "epoll_pwait2"}},
      {10, {S::Fgetxattr, "fgetxattr"}}, {11, {S::Listxattr, "listxattr"}},
      {12, {S::Llistxattr, "llistxattr"}}, {13, {S::Flistxattr, "flistxattr"}},
  };
  return table;
}

}  // namespace ttd::rec
