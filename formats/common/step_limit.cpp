#include "formats/common/step_limit.h"

#include <limits>

namespace ttd::fmt {

uint64_t step_limit(const ReaderOptions& opts, uint64_t file_bytes) {
  if (opts.max_steps != 0) return opts.max_steps;
  uint64_t scaled = file_bytes > std::numeric_limits<uint64_t>::max() / kAutoStepsPerByte
                        ? std::numeric_limits<uint64_t>::max()
                        : file_bytes * kAutoStepsPerByte;
  return scaled < kAutoStepsFloor ? kAutoStepsFloor : scaled;
}

Status check_step_count(const std::string& path, uint64_t steps, std::string_view source, const ReaderOptions& opts,
                        uint64_t file_bytes) {
  uint64_t limit = step_limit(opts, file_bytes);
  if (steps <= limit) return {};
  std::string why = opts.max_steps != 0
                        ? "more than --max-steps " + std::to_string(limit)
                        : "more than the " + std::to_string(limit) + " steps a file of " + std::to_string(file_bytes) +
                              " bytes may expand to (" + std::to_string(kAutoStepsPerByte) +
                              " per byte); if the trace is genuinely that long, pass --max-steps N";
  return make_error(path, std::string(source) + " declares " + std::to_string(steps) + " steps: " + why);
}

}  // namespace ttd::fmt
