// A small FDR / basic log writer for tests and the benchmark generator:
// lays records out exactly as the compiler-rt runtime does (including,
// on request, its typed-event BufferExtents bug), so crafted files exercise
// the same paths as real ones.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace xray_test {

enum class Action : uint8_t { Enter = 0, Exit = 1, TailExit = 2, EnterArgs = 3 };

class FdrWriter {
 public:
  // buffer_size goes to the header (compiler-rt writes its thread buffer
  // size there; LLVM's writer 0). Version 1 with a buffer size pads every
  // buffer to that size after its EndOfBuffer.
  explicit FdrWriter(uint16_t version, uint64_t buffer_size = 0, uint64_t cycle_frequency = 3000000000ull);

  // NewBuffer, WallTime, Pid (v3+), NewCPU, preceded by BufferExtents (v2+).
  void begin_buffer(int32_t tid, int32_t pid, uint16_t cpu, uint64_t tsc, uint64_t wall_seconds = 1700000000,
                    uint32_t wall_micros = 0);
  void function(Action a, uint32_t func_id, uint32_t delta);
  void argument(uint64_t value);
  void new_cpu(uint16_t cpu, uint64_t tsc);
  void tsc_wrap(uint64_t tsc);
  void walltime(uint64_t seconds, uint32_t micros);
  void pid(int32_t pid);
  // v5: delta-encoded; v1-4: absolute TSC (and CPU from v4).
  void custom_event(int64_t delta_or_tsc, std::string_view payload, uint16_t cpu = 0);
  void typed_event(int32_t delta, uint16_t type, std::string_view payload);
  // Closes the buffer: patches BufferExtents (v2+) or writes EndOfBuffer
  // (v1). With runtime_bug the extents omit 16 bytes per typed event and
  // the bytes beyond the extents are dropped, as compiler-rt's flush does.
  void end_buffer(bool runtime_bug = false);
  // Byte that fills a version 1 buffer after its EndOfBuffer (the runtime
  // leaves whatever was in memory there).
  void set_v1_padding(uint8_t b) { v1_padding_ = b; }
  // Raw bytes, for malformed input.
  void raw(const std::vector<uint8_t>& bytes);
  void metadata(uint8_t kind, const std::vector<uint8_t>& data15);

  std::vector<uint8_t>& bytes() { return out_; }
  size_t size() const { return out_.size(); }
  bool save(const std::string& path) const;
  // Hands out the bytes written so far and keeps going (for huge files).
  std::vector<uint8_t> take();

 private:
  void put16(uint16_t v);
  void put32(uint32_t v);
  void put64(uint64_t v);
  void meta_begin(uint8_t kind);
  void meta_pad(size_t data_written);

  uint16_t version_;
  uint64_t buffer_size_;
  std::vector<uint8_t> out_;
  uint64_t flushed_ = 0;     // bytes handed out by take()
  size_t buffer_start_ = 0;  // in out_: BufferExtents (v2+) or NewBuffer (v1)
  uint32_t typed_in_buffer_ = 0;
  uint8_t v1_padding_ = 0xab;
};

// Basic-mode record helpers (32 bytes each).
std::vector<uint8_t> basic_header(uint16_t version, uint64_t cycle_frequency = 1000000000ull);
void basic_function(std::vector<uint8_t>& out, Action a, int32_t func_id, uint64_t tsc, uint32_t tid, uint32_t pid,
                    uint8_t cpu = 0);
void basic_argument(std::vector<uint8_t>& out, int32_t func_id, uint32_t tid, uint32_t pid, uint64_t arg);

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes);

}  // namespace xray_test
