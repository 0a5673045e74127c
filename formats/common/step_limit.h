// How many steps a trace may expand to. In some formats a few bytes declare
// many steps (an rvnblock execution row names the transition where a run
// ends, so one row can claim 2^40 steps); a reader of such a format checks
// the count it would produce against this limit before it emits anything,
// so a tiny hostile file cannot make `index` write without end.
//
// The automatic limit scales with the file: kAutoStepsPerByte steps per
// byte (real traces stay far below: an rvnblock row of ~12 bytes runs one
// block of a few to a few hundred instructions), and never less than
// kAutoStepsFloor. ReaderOptions::max_steps (CLI --max-steps) replaces it
// for a genuinely huge trace.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

#include "formats/common/trace_reader.h"
#include "state/error.h"

namespace ttd::fmt {

constexpr uint64_t kAutoStepsPerByte = 256;
constexpr uint64_t kAutoStepsFloor = uint64_t(1) << 20;

// The limit for a file of file_bytes: max_steps when set, else automatic.
uint64_t step_limit(const ReaderOptions& opts, uint64_t file_bytes);

// OK when `steps` is within the limit; else an error naming the file, what
// declared the count (`source`, e.g. "the last execution row") and the
// option that raises the limit.
Status check_step_count(const std::string& path, uint64_t steps, std::string_view source, const ReaderOptions& opts,
                        uint64_t file_bytes);

}  // namespace ttd::fmt
