#include "tools/recorder/async_trace_writer.h"

#include <cstring>

namespace ttd::rec {

namespace {

enum Tag : uint8_t {
  kBeginKeyframe, kEndKeyframe, kBeginFrame, kJmp, kStep, kReg, kMemRead, kMemWrite,
  kMemMap, kMemUnmap, kMemProtect, kBeginSyscall, kEndSyscall, kExit, kSetThread, kBeginThreadKeyframe,
};

// Reads back what put() wrote.
struct Cursor {
  const uint8_t* p;
  template <class T>
  T get() {
    T v;
    std::memcpy(&v, p, sizeof v);
    p += sizeof v;
    return v;
  }
  std::span<const uint8_t> bytes(size_t n) {
    std::span<const uint8_t> s(p, n);
    p += n;
    return s;
  }
};

}  // namespace

AsyncTraceWriter::AsyncTraceWriter(std::unique_ptr<fmt::UcirWriter> inner) : inner_(std::move(inner)) {
  cur_.bytes.resize(kBufferBytes);
  worker_ = std::thread([this] { work(); });
}

AsyncTraceWriter::~AsyncTraceWriter() {
  if (!closed_) close();
}

void AsyncTraceWriter::hand_over(size_t need) {
  std::unique_lock<std::mutex> lock(mu_);
  cv_.wait(lock, [&] { return queue_.size() < kMaxQueued; });
  queue_.push_back(std::move(cur_));
  cur_ = Buffer();
  if (!spare_.empty()) {
    cur_ = std::move(spare_.back());
    spare_.pop_back();
  }
  lock.unlock();
  cv_.notify_all();
  cur_.used = 0;
  if (cur_.bytes.size() < std::max(kBufferBytes, need)) cur_.bytes.resize(std::max(kBufferBytes, need));
}

void AsyncTraceWriter::work() {
  while (true) {
    Buffer b;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [&] { return !queue_.empty() || done_; });
      if (queue_.empty()) return;
      b = std::move(queue_.front());
      queue_.pop_front();
    }
    cv_.notify_all();
    replay(b);
    b.used = 0;
    std::lock_guard<std::mutex> lock(mu_);
    if (spare_.size() < 2 && b.bytes.size() <= 4 * kBufferBytes) spare_.push_back(std::move(b));
  }
}

void AsyncTraceWriter::replay(const Buffer& b) {
  Cursor c{b.bytes.data()};
  const uint8_t* end = b.bytes.data() + b.used;
  fmt::UcirWriter& w = *inner_;
  while (c.p < end) {
    switch (c.get<uint8_t>()) {
      case kBeginKeyframe: w.begin_keyframe(); break;
      case kEndKeyframe: w.end_keyframe(); break;
      case kBeginFrame: w.begin_frame(); break;
      case kSetThread: w.set_thread(c.get<uint32_t>()); break;
      case kBeginThreadKeyframe: w.begin_thread_keyframe(c.get<uint32_t>()); break;
      case kJmp: {
        uint64_t a = c.get<uint64_t>();
        w.jmp(a, c.get<uint32_t>());
        break;
      }
      case kStep: w.step(c.get<uint8_t>()); break;
      case kReg: {
        uint16_t r = c.get<uint16_t>();
        uint8_t n = c.get<uint8_t>();
        w.reg(r, c.bytes(n));
        break;
      }
      case kMemRead: {
        uint64_t a = c.get<uint64_t>();
        w.mem_read(a, c.get<uint32_t>());
        break;
      }
      case kMemWrite: {
        uint64_t a = c.get<uint64_t>();
        uint32_t n = c.get<uint32_t>();
        w.mem_write(a, c.bytes(n));
        break;
      }
      case kMemMap: {
        uint64_t a = c.get<uint64_t>(), size = c.get<uint64_t>();
        uint8_t prot = c.get<uint8_t>();
        uint64_t off = c.get<uint64_t>(), fsize = c.get<uint64_t>();
        uint16_t dl = c.get<uint16_t>();
        auto desc = c.bytes(dl);
        uint16_t fl = c.get<uint16_t>();
        auto file = c.bytes(fl);
        w.mem_map(a, size, prot, {reinterpret_cast<const char*>(desc.data()), dl},
                  {reinterpret_cast<const char*>(file.data()), fl}, off, fsize);
        break;
      }
      case kMemUnmap: {
        uint64_t a = c.get<uint64_t>();
        w.mem_unmap(a, c.get<uint64_t>());
        break;
      }
      case kMemProtect: {
        uint64_t a = c.get<uint64_t>(), size = c.get<uint64_t>();
        w.mem_protect(a, size, c.get<uint8_t>());
        break;
      }
      case kBeginSyscall: {
        uint32_t num = c.get<uint32_t>();
        uint64_t ret = c.get<uint64_t>();
        uint8_t argc = c.get<uint8_t>();
        uint64_t args[255];
        for (uint8_t i = 0; i < argc; ++i) args[i] = c.get<uint64_t>();
        w.begin_syscall(num, ret, {args, argc});
        break;
      }
      case kEndSyscall: w.end_syscall(); break;
      case kExit: w.exit(); break;
    }
  }
}

void AsyncTraceWriter::begin_keyframe() { *reserve(1) = kBeginKeyframe; }
void AsyncTraceWriter::end_keyframe() { *reserve(1) = kEndKeyframe; }
void AsyncTraceWriter::begin_frame() { *reserve(1) = kBeginFrame; }
void AsyncTraceWriter::set_thread(uint32_t thread) { put(put(reserve(5), uint8_t(kSetThread)), thread); }
void AsyncTraceWriter::begin_thread_keyframe(uint32_t thread) {
  put(put(reserve(5), uint8_t(kBeginThreadKeyframe)), thread);
}
void AsyncTraceWriter::jmp(uint64_t addr, uint32_t block_size) {
  put(put(put(reserve(13), kJmp), addr), block_size);
}
void AsyncTraceWriter::step(uint8_t size) { put(put(reserve(2), kStep), size); }
void AsyncTraceWriter::reg(uint16_t reg_index, std::span<const uint8_t> value_le) {
  uint8_t n = uint8_t(std::min<size_t>(value_le.size(), 255));
  uint8_t* p = put(put(put(reserve(4 + n), kReg), reg_index), n);
  std::memcpy(p, value_le.data(), n);
}
void AsyncTraceWriter::reg_u64(uint16_t reg_index, uint64_t value) {
  uint8_t le[8];
  for (int i = 0; i < 8; ++i) le[i] = uint8_t(value >> (8 * i));
  reg(reg_index, le);
}
void AsyncTraceWriter::mem_read(uint64_t addr, uint32_t size) {
  put(put(put(reserve(13), kMemRead), addr), size);
}
void AsyncTraceWriter::mem_write(uint64_t addr, std::span<const uint8_t> bytes) {
  // Split so that one record never needs more than a buffer.
  while (!bytes.empty()) {
    size_t n = std::min<size_t>(bytes.size(), kBufferBytes);
    uint8_t* p = put(put(put(reserve(13 + n), kMemWrite), addr), uint32_t(n));
    std::memcpy(p, bytes.data(), n);
    addr += n;
    bytes = bytes.subspan(n);
  }
}
void AsyncTraceWriter::mem_map(uint64_t addr, uint64_t size, uint8_t prot, std::string_view desc,
                               std::string_view file, uint64_t file_off, uint64_t file_size) {
  desc = desc.substr(0, 0xffff);
  file = file.substr(0, 0xffff);
  uint8_t* p = reserve(1 + 8 + 8 + 1 + 8 + 8 + 2 + desc.size() + 2 + file.size());
  p = put(put(put(put(put(put(p, kMemMap), addr), size), prot), file_off), file_size);
  p = put(p, uint16_t(desc.size()));
  std::memcpy(p, desc.data(), desc.size());
  p = put(p + desc.size(), uint16_t(file.size()));
  std::memcpy(p, file.data(), file.size());
}
void AsyncTraceWriter::mem_unmap(uint64_t addr, uint64_t size) {
  put(put(put(reserve(17), kMemUnmap), addr), size);
}
void AsyncTraceWriter::mem_protect(uint64_t addr, uint64_t size, uint8_t prot) {
  put(put(put(put(reserve(18), kMemProtect), addr), size), prot);
}
void AsyncTraceWriter::begin_syscall(uint32_t num, uint64_t ret, std::span<const uint64_t> args) {
  uint8_t argc = uint8_t(std::min<size_t>(args.size(), 255));
  uint8_t* p = put(put(put(put(reserve(14 + 8 * argc), kBeginSyscall), num), ret), argc);
  for (uint8_t i = 0; i < argc; ++i) p = put(p, args[i]);
}
void AsyncTraceWriter::end_syscall() { *reserve(1) = kEndSyscall; }
void AsyncTraceWriter::exit() { *reserve(1) = kExit; }

Status AsyncTraceWriter::close() {
  if (closed_) return make_error("record", "trace writer closed twice");
  closed_ = true;
  {
    std::unique_lock<std::mutex> lock(mu_);
    if (cur_.used) queue_.push_back(std::move(cur_));
    done_ = true;
  }
  cv_.notify_all();
  worker_.join();
  return inner_->close();
}

uint64_t AsyncTraceWriter::dropped_registers() const { return inner_->dropped_registers(); }

}  // namespace ttd::rec
