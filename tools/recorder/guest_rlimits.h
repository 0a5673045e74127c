// The process's resource limits (getrlimit, setrlimit, prlimit64;
// docs/recording.md, "Process"). They start as the recorder's own, which
// is what the program inherits natively from whoever ran `ttd record`, are
// kept for the process, and survive execve as Linux keeps them.
// RLIMIT_NOFILE bounds the guest's descriptor table (GuestFdTable); the
// others are reported, not enforced on the recorder itself (a guest's
// RLIMIT_FSIZE must not cut the trace), and a fork's child that execs on
// the host hands them to the new program (host_exec.h).
#pragma once
#include <array>
#include <cstdint>

namespace ttd::rec {

class GuestRlimits {
 public:
  static constexpr int kCount = 16;   // RLIMIT_CPU .. RLIMIT_RTTIME
  static constexpr int kNofile = 7;
  struct Limit {
    uint64_t cur = ~0ull, max = ~0ull;  // RLIM_INFINITY
  };

  // The recorder's limits.
  static GuestRlimits of_host();

  const Limit& get(int resource) const { return limits_[resource]; }
  // As prlimit64 sets one: -EINVAL when cur > max (or RLIMIT_NOFILE above
  // the host's fs.nr_open), -EPERM when it raises max without privilege.
  int64_t set(int resource, Limit l);
  // A soft limit the recorder imposes itself (the stack it maps): reported,
  // but not a change of the program's (changed() stays false).
  void lower_reported(int resource, uint64_t cur);
  // Whether the program set this limit (a native exec is given only those).
  bool changed(int resource) const { return changed_[resource]; }
  // RLIMIT_NOFILE's soft limit as a descriptor count (nr_open at most).
  int max_fds() const;

 private:
  std::array<Limit, kCount> limits_{};
  std::array<bool, kCount> changed_{};
};

}  // namespace ttd::rec
