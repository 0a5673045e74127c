// Measures the XRay reader's throughput on one log (not a test: timings
// depend on the machine). Three passes, each streaming the whole file:
//   survey  - the first pass of TraceReader::read (records, no events)
//   events  - records expanded into events (the pipeline behind `ttd calls`)
//   steps   - TraceReader::read into a sink that takes every step and attr
//             (survey + steps: what importing the trace costs)
// Each pass is timed by the wall clock and by the process CPU clock (the
// reader is single-threaded; on a shared, loaded machine the CPU figure is
// the one that says what the code costs).
//   xray_read_speed LOG
#include <time.h>

#include <chrono>
#include <cstdio>

#include "formats/xray/xray_format.h"
#include "formats/xray/xray_pipeline.h"

using namespace ttd::fmt;

namespace {

struct CountingSink : TraceSink {
  uint64_t steps = 0, attrs = 0;
  void begin(const TraceInfo&) override {}
  void step(const StepInfo&) override { ++steps; }
  void attr(std::string_view, const AttrValue&) override { ++attrs; }
  void reg(uint64_t, uint16_t, std::span<const uint8_t>) override {}
  void mem_write(uint64_t, uint64_t, std::span<const uint8_t>) override {}
};

struct CountingEvents : xray::EventConsumer {
  uint64_t n = 0;
  ttd::Status on_event(const xray::XrayEvent&) override {
    ++n;
    return {};
  }
};

double cpu_now() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + double(ts.tv_nsec) * 1e-9;
}

struct Timer {
  std::chrono::steady_clock::time_point wall0 = std::chrono::steady_clock::now();
  double cpu0 = cpu_now();
  double wall() const { return std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count(); }
  double cpu() const { return cpu_now() - cpu0; }
};

void line(const char* name, double mb, double wall, double cpu, const char* extra) {
  std::printf("%-7s wall %7.3f s %8.1f MiB/s   cpu %7.3f s %8.1f MiB/s  %s\n", name, wall, mb / wall, cpu, mb / cpu,
              extra);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s LOG\n", argv[0]);
    return 2;
  }
  std::string log = argv[1];
  Timer t;
  auto rep = xray::survey_xray(log);
  double survey_wall = t.wall(), survey_cpu = t.cpu();
  if (!rep.error.empty()) {
    std::fprintf(stderr, "%s\n", rep.error.c_str());
    return 1;
  }
  double mb = double(rep.file_size) / (1024.0 * 1024.0);

  CountingEvents ev;
  t = Timer();
  auto s = xray::read_xray_events(log, ev);
  double events_wall = t.wall(), events_cpu = t.cpu();
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }

  auto reader = xray_format().open(log, {});
  if (!reader) {
    std::fprintf(stderr, "%s\n", reader.error().to_string().c_str());
    return 1;
  }
  CountingSink sink;
  t = Timer();
  s = (*reader)->read(sink, {});
  double steps_wall = t.wall(), steps_cpu = t.cpu();
  if (!s) {
    std::fprintf(stderr, "%s\n", s.error().to_string().c_str());
    return 1;
  }
  std::printf("%s: %.1f MiB, %llu steps, %llu attrs\n", log.c_str(), mb, static_cast<unsigned long long>(sink.steps),
              static_cast<unsigned long long>(sink.attrs));
  char extra[96];
  line("survey", mb, survey_wall, survey_cpu, "");
  std::snprintf(extra, sizeof extra, "(%.1f M events/s cpu)", double(ev.n) / events_cpu / 1e6);
  line("events", mb, events_wall, events_cpu, extra);
  std::snprintf(extra, sizeof extra, "(%.1f M steps/s cpu, survey included)", double(sink.steps) / steps_cpu / 1e6);
  line("steps", mb, steps_wall, steps_cpu, extra);
  return 0;
}
