// What the benchmarks measure about their own process: CPU seconds of all
// threads, peak resident set, and latency percentiles. Shared by
// engine_bench (Google Benchmark, the loop trace) and corpus_probe (any
// trace of the real-workload corpus, JSON out).
#pragma once
#include <sys/resource.h>

#include <algorithm>
#include <vector>

namespace ttd::bench {

// User + system CPU seconds of the whole process (every thread).
inline double process_cpu_s() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) + double(ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6;
}

// Peak resident set of the process so far, in MB (2^20 bytes: ru_maxrss is KiB).
inline double peak_rss_mb() {
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  return double(ru.ru_maxrss) / 1024.0;
}

struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};

// p50 / p99 / max of the samples (sorted in place); zeros when empty.
inline Percentiles percentiles(std::vector<double>& samples) {
  if (samples.empty()) return {};
  std::sort(samples.begin(), samples.end());
  return {samples[samples.size() / 2], samples[samples.size() * 99 / 100], samples.back()};
}

}  // namespace ttd::bench
