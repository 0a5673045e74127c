// Helpers for the UCIR tests: a sink that logs every call as a line of
// text (so expectations read like the stream they describe), scratch file
// names, and builders for hand-made UCIR files (raw op bytes, raw chunks).
#pragma once
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "formats/common/step_batch.h"
#include "formats/common/trace_sink.h"
#include "state/error.h"

namespace ttd::test {

class RecordingSink : public fmt::TraceSink {
 public:
  fmt::TraceInfo info;
  std::vector<fmt::StepInfo> steps;
  std::vector<std::string> log;  // one line per call, see ucir_test_support.cpp

  void begin(const fmt::TraceInfo& i) override;
  void step(const fmt::StepInfo& s) override;
  void attr(std::string_view key, const fmt::AttrValue& v) override;
  void reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) override;
  void reg_unknown(uint64_t tid, uint16_t reg) override;
  void mem_write(uint64_t pid, uint64_t addr, std::span<const uint8_t> bytes) override;
  void mem_read(uint64_t pid, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) override;
  void mem_unknown(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_map(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) override;
  void mem_unmap(uint64_t pid, uint64_t addr, uint64_t size) override;
  void mem_protect(uint64_t pid, uint64_t addr, uint64_t size, uint8_t prot) override;
  void thread_begin(uint64_t tid, uint64_t pid) override;
  void thread_end(uint64_t tid) override;
  void end() override;
  // A reader that learns a property late (a cut-short trace) revises it.
  void revise(const fmt::TraceInfo& i) override { info.properties = i.properties; }

  // Log lines from the first "step" on (the keyframe part removed).
  std::vector<std::string> after_first_step() const;
  // Log lines before the first "step" (begin, keyframe, zero registers).
  std::vector<std::string> before_first_step() const;
  std::string property(const std::string& key) const;
};

// A RecordingSink that takes the reader's step batches
// (formats/common/step_batch.h), as the index builder does, and logs the
// calls each batch stands for: its log is a RecordingSink's.
class BatchRecordingSink : public RecordingSink, public fmt::BatchSink {
 public:
  size_t batches = 0;
  void steps(const fmt::StepBatch& b) override {
    ++batches;
    fmt::send_one_by_one(b, *this);
  }
};

// Lines joined with newlines, so failed comparisons print readably.
std::string join(const std::vector<std::string>& lines);

// A unique scratch file path (removed by the caller or left in /tmp).
std::string temp_path(const std::string& name);
// Removes every file temp_path() handed out in this process.
void remove_temp_files();

std::vector<uint8_t> ucir_header_bytes(const std::string& arch = "x86_64", bool version_little_endian = false);
// Writes header + a snappy framed stream holding `ops`.
std::string write_raw_ucir(std::span<const uint8_t> ops, const std::string& arch = "x86_64",
                           bool version_little_endian = false);
// Appends one framing chunk (type, body = masked CRC + payload for data
// chunks) to out; `corrupt_crc` flips the stored CRC.
void append_chunk(std::vector<uint8_t>& out, uint8_t type, std::span<const uint8_t> payload, bool corrupt_crc = false);
void append_stream_identifier(std::vector<uint8_t>& out);
std::string write_bytes(const std::string& name, std::span<const uint8_t> bytes);
std::vector<uint8_t> read_bytes(const std::string& path);

// Opens and reads a UCIR file into sink. A sink that does not take
// batches is checked against a second read through batches: the same
// calls, the same result.
Status read_ucir(const std::string& path, RecordingSink& sink);

}  // namespace ttd::test
