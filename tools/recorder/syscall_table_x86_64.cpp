// x86-64 syscall numbers (arch/x86/entry/syscalls/syscall_64.tbl). Entries
// with Sys::Unsupported are here only so reports can name them.
#include "tools/recorder/syscall_table.h"

namespace ttd::rec {

const SyscallTable& syscall_table_x86_64() {
  using S = Sys;
  constexpr S U = S::Unsupported;
  static const SyscallTable table{
      {0, {S::Read, "read"}},          {1, {S::Write, "write"}},
      {2, {S::Open, "open"}},                {3, {S::Close, "close"}},
      {4, {S::Stat, "stat"}},                {5, {S::Fstat, "fstat"}},
      {6, {S::Lstat, "lstat"}},               {7, {S::Poll, "poll"}},
      {8, {S::Lseek, "lseek"}},        {9, {S::Mmap, "mmap"}},
      {10, {S::Mprotect, "mprotect"}}, {11, {S::Munmap, "munmap"}},
      {12, {S::Brk, "brk"}},           {13, {S::RtSigaction, "rt_sigaction"}},
      {14, {S::RtSigprocmask, "rt_sigprocmask"}}, {15, {U, "rt_sigreturn"}},
      {16, {S::Ioctl, "ioctl"}},       {17, {S::Pread64, "pread64"}},
      {18, {S::Pwrite64, "pwrite64"}},           {19, {S::Readv, "readv"}},
      {20, {S::Writev, "writev"}},     {21, {S::Access, "access"}},
      {22, {S::Pipe, "pipe"}},               {23, {S::Select, "select"}},
      {24, {S::SchedYield, "sched_yield"}}, {25, {S::Mremap, "mremap"}},
      {26, {U, "msync"}},              {27, {U, "mincore"}},
      {28, {S::Madvise, "madvise"}},   {32, {S::Dup, "dup"}},
      {33, {S::Dup2, "dup2"}},               {34, {U, "pause"}},
      {35, {S::Nanosleep, "nanosleep"}}, {37, {U, "alarm"}},
      {38, {U, "setitimer"}},          {39, {S::Getpid, "getpid"}},
      {41, {S::Socket, "socket"}},             {42, {U, "connect"}},
      {56, {S::Clone, "clone"}},       {57, {S::Fork, "fork"}},
      {58, {S::Vfork, "vfork"}},       {59, {S::Execve, "execve"}},
      {322, {S::Execveat, "execveat"}},
      {60, {S::Exit, "exit"}},         {61, {S::Wait4, "wait4"}},
      {62, {S::Kill, "kill"}},         {63, {S::Uname, "uname"}},
      {72, {S::Fcntl, "fcntl"}},              {74, {U, "fsync"}},
      {77, {U, "ftruncate"}},          {78, {U, "getdents"}},
      {79, {S::Getcwd, "getcwd"}},             {80, {S::Chdir, "chdir"}},
      {82, {U, "rename"}},             {83, {U, "mkdir"}},
      {87, {S::Unlink, "unlink"}},             {89, {S::Readlink, "readlink"}},
      {95, {S::Umask, "umask"}},              {96, {S::Gettimeofday, "gettimeofday"}},
      {97, {S::Getrlimit, "getrlimit"}}, {98, {U, "getrusage"}},
      {99, {S::Sysinfo, "sysinfo"}},            {100, {U, "times"}},
      {102, {S::Getuid, "getuid"}},    {104, {S::Getgid, "getgid"}},
      {107, {S::Geteuid, "geteuid"}},  {108, {S::Getegid, "getegid"}},
      {110, {S::Getppid, "getppid"}},  {131, {S::Sigaltstack, "sigaltstack"}},
      {157, {S::Prctl, "prctl"}},             {158, {S::ArchPrctl, "arch_prctl"}},
      {186, {S::Gettid, "gettid"}},    {200, {S::Tkill, "tkill"}},
      {201, {S::Time, "time"}},        {202, {S::Futex, "futex"}},
      {203, {U, "sched_setaffinity"}}, {204, {S::SchedGetaffinity, "sched_getaffinity"}},
      {217, {S::Getdents64, "getdents64"}},        {218, {S::SetTidAddress, "set_tid_address"}},
      {228, {S::ClockGettime, "clock_gettime"}}, {229, {S::ClockGetres, "clock_getres"}},
      {230, {S::ClockNanosleep, "clock_nanosleep"}}, {231, {S::ExitGroup, "exit_group"}},
      {234, {S::Tgkill, "tgkill"}},    {257, {S::Openat, "openat"}},
      {262, {S::Newfstatat, "newfstatat"}}, {267, {S::Readlinkat, "readlinkat"}},
      {269, {S::Faccessat, "faccessat"}},         {273, {S::SetRobustList, "set_robust_list"}},
      {293, {S::Pipe2, "pipe2"}},             {302, {S::Prlimit64, "prlimit64"}},
      {309, {U, "getcpu"}},            {318, {S::Getrandom, "getrandom"}},
      {324, {U, "membarrier"}},        {332, {S::Statx, "statx"}},
      {334, {S::Rseq, "rseq"}},        {435, {S::Clone3, "clone3"}},
      {439, {S::Faccessat2, "faccessat2"}}, {247, {S::Waitid, "waitid"}},
      {81, {S::Fchdir, "fchdir"}},     {118, {S::Getresuid, "getresuid"}},
      {120, {S::Getresgid, "getresgid"}}, {221, {S::Fadvise64, "fadvise64"}},
      {263, {S::Unlinkat, "unlinkat"}}, {292, {S::Dup3, "dup3"}},
      {137, {S::Statfs, "statfs"}},    {138, {S::Fstatfs, "fstatfs"}},
      {191, {S::Getxattr, "getxattr"}}, {192, {S::Lgetxattr, "lgetxattr"}},
      {270, {S::Pselect6, "pselect6"}}, {271, {S::Ppoll, "ppoll"}},
      {274, {S::GetRobustList, "get_robust_list"}},
      {213, {S::EpollCreate, "epoll_create"}}, {232, {S::EpollWait, "epoll_wait"}},
      {233, {S::EpollCtl, "epoll_ctl"}}, {281, {S::EpollPwait, "epoll_pwait"}},
      {284, {S::Eventfd, "eventfd"}},   {290, {S::Eventfd2, "eventfd2"}},
      {291, {S::EpollCreate1, "epoll_create1"}}, {441, {S::EpollPwait2, "epoll_pwait2"}},
      {193, {S::Fgetxattr, "fgetxattr"}}, {194, {S::Listxattr, "listxattr"}},
      {195, {S::Llistxattr, "llistxattr"}}, {196, {S::Flistxattr, "flistxattr"}},
  };
  return table;
}

}  // namespace ttd::rec
