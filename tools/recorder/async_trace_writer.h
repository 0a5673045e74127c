// A UcirWriter that hands its ops to another thread, which replays them
// into the real writer. Encoding, snappy compression, checksums and file
// I/O then run beside the emulator instead of inside its hooks: on a
// two-core machine that is roughly a third of the recording time.
//
// Ops are appended to a compact byte buffer; full buffers go to the worker
// through a small bounded queue (the emulator waits if the worker falls
// behind, so memory stays bounded). Order is preserved exactly.
#pragma once
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

#include "formats/ucir/ucir_writer.h"

namespace ttd::rec {

class AsyncTraceWriter final : public fmt::UcirWriter {
 public:
  explicit AsyncTraceWriter(std::unique_ptr<fmt::UcirWriter> inner);
  ~AsyncTraceWriter() override;

  void begin_keyframe() override;
  void end_keyframe() override;
  void begin_frame() override;
  void set_thread(uint32_t thread) override;
  void begin_thread_keyframe(uint32_t thread) override;
  void jmp(uint64_t addr, uint32_t block_size) override;
  void step(uint8_t size) override;
  void reg(uint16_t reg_index, std::span<const uint8_t> value_le) override;
  void reg_u64(uint16_t reg_index, uint64_t value) override;
  void mem_read(uint64_t addr, uint32_t size) override;
  void mem_write(uint64_t addr, std::span<const uint8_t> bytes) override;
  void mem_map(uint64_t addr, uint64_t size, uint8_t prot, std::string_view desc, std::string_view file = {},
               uint64_t file_off = 0, uint64_t file_size = 0) override;
  void mem_unmap(uint64_t addr, uint64_t size) override;
  void mem_protect(uint64_t addr, uint64_t size, uint8_t prot) override;
  void begin_syscall(uint32_t num, uint64_t ret, std::span<const uint64_t> args) override;
  void end_syscall() override;
  void exit() override;
  // Waits for the worker to replay everything, then closes the real writer.
  Status close() override;
  uint64_t dropped_registers() const override;

 private:
  // bytes is allocated once at full size; `used` says how much holds ops
  // (growing a vector op by op would zero-fill every byte twice).
  struct Buffer {
    std::vector<uint8_t> bytes;
    size_t used = 0;
  };
  static constexpr size_t kBufferBytes = 1 << 20;
  static constexpr size_t kMaxQueued = 8;

  // Makes room for n more bytes, handing the current buffer over if full.
  uint8_t* reserve(size_t n) {
    if (cur_.used + n > cur_.bytes.size()) hand_over(n);
    uint8_t* p = cur_.bytes.data() + cur_.used;
    cur_.used += n;
    return p;
  }
  template <class T>
  static uint8_t* put(uint8_t* p, T v) {
    std::memcpy(p, &v, sizeof v);
    return p + sizeof v;
  }
  void hand_over(size_t need);
  void work();
  void replay(const Buffer& b);

  std::unique_ptr<fmt::UcirWriter> inner_;
  Buffer cur_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<Buffer> queue_;
  std::vector<Buffer> spare_;
  bool done_ = false;
  bool closed_ = false;
  std::thread worker_;
};

}  // namespace ttd::rec
