#include "fdr_writer.h"

#include <cstdio>
#include <cstring>

namespace xray_test {

FdrWriter::FdrWriter(uint16_t version, uint64_t buffer_size, uint64_t cycle_frequency)
    : version_(version), buffer_size_(buffer_size) {
  put16(version);
  put16(1);  // FDR
  put32(3);  // constant + nonstop TSC
  put64(cycle_frequency);
  put64(buffer_size);
  put64(0);
}

void FdrWriter::put16(uint16_t v) {
  for (int i = 0; i < 2; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}
void FdrWriter::put32(uint32_t v) {
  for (int i = 0; i < 4; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}
void FdrWriter::put64(uint64_t v) {
  for (int i = 0; i < 8; ++i) out_.push_back(uint8_t(v >> (8 * i)));
}
void FdrWriter::meta_begin(uint8_t kind) { out_.push_back(uint8_t((kind << 1) | 1)); }
void FdrWriter::meta_pad(size_t data_written) { out_.insert(out_.end(), 15 - data_written, 0); }

void FdrWriter::begin_buffer(int32_t tid, int32_t pid_, uint16_t cpu, uint64_t tsc, uint64_t wall_seconds,
                             uint32_t wall_micros) {
  buffer_start_ = out_.size();
  typed_in_buffer_ = 0;
  if (version_ >= 2) {
    meta_begin(7);
    put64(0);  // patched by end_buffer
    meta_pad(8);
  }
  meta_begin(0);
  put32(uint32_t(tid));
  meta_pad(4);
  walltime(wall_seconds, wall_micros);
  if (version_ >= 3) pid(pid_);
  new_cpu(cpu, tsc);
}

void FdrWriter::function(Action a, uint32_t func_id, uint32_t delta) {
  put32((func_id << 4) | (uint32_t(a) << 1));
  put32(delta);
}

void FdrWriter::argument(uint64_t value) {
  meta_begin(6);
  put64(value);
  meta_pad(8);
}

void FdrWriter::new_cpu(uint16_t cpu, uint64_t tsc) {
  meta_begin(2);
  put16(cpu);
  put64(tsc);
  meta_pad(10);
}

void FdrWriter::tsc_wrap(uint64_t tsc) {
  meta_begin(3);
  put64(tsc);
  meta_pad(8);
}

void FdrWriter::walltime(uint64_t seconds, uint32_t micros) {
  meta_begin(4);
  put64(seconds);
  put32(micros);
  meta_pad(12);
}

void FdrWriter::pid(int32_t p) {
  meta_begin(9);
  put32(uint32_t(p));
  meta_pad(4);
}

void FdrWriter::custom_event(int64_t delta_or_tsc, std::string_view payload, uint16_t cpu) {
  meta_begin(5);
  put32(uint32_t(payload.size()));
  if (version_ >= 5) {
    put32(uint32_t(int32_t(delta_or_tsc)));
    meta_pad(8);
  } else {
    put64(uint64_t(delta_or_tsc));
    put16(cpu);
    meta_pad(14);
  }
  out_.insert(out_.end(), payload.begin(), payload.end());
}

void FdrWriter::typed_event(int32_t delta, uint16_t type, std::string_view payload) {
  meta_begin(8);
  put32(uint32_t(payload.size()));
  put32(uint32_t(delta));
  put16(type);
  meta_pad(10);
  out_.insert(out_.end(), payload.begin(), payload.end());
  ++typed_in_buffer_;
}

void FdrWriter::end_buffer(bool runtime_bug) {
  if (version_ == 1) {
    meta_begin(1);
    meta_pad(0);
    if (buffer_size_) {
      size_t used = out_.size() - buffer_start_;
      if (used < buffer_size_) out_.insert(out_.end(), buffer_size_ - used, v1_padding_);
    }
    return;
  }
  uint64_t extents = out_.size() - buffer_start_ - 16;
  if (runtime_bug) {
    uint64_t missing = uint64_t(typed_in_buffer_) * 16;
    extents = extents > missing ? extents - missing : 0;
    out_.resize(buffer_start_ + 16 + extents);
  }
  for (int i = 0; i < 8; ++i) out_[buffer_start_ + 1 + i] = uint8_t(extents >> (8 * i));
}

void FdrWriter::raw(const std::vector<uint8_t>& bytes) { out_.insert(out_.end(), bytes.begin(), bytes.end()); }

void FdrWriter::metadata(uint8_t kind, const std::vector<uint8_t>& data15) {
  meta_begin(kind);
  std::vector<uint8_t> d = data15;
  d.resize(15, 0);
  out_.insert(out_.end(), d.begin(), d.end());
}

bool FdrWriter::save(const std::string& path) const { return write_file(path, out_); }

std::vector<uint8_t> FdrWriter::take() {
  std::vector<uint8_t> done;
  done.swap(out_);
  flushed_ += done.size();
  buffer_start_ = 0;
  return done;
}

std::vector<uint8_t> basic_header(uint16_t version, uint64_t cycle_frequency) {
  std::vector<uint8_t> h(32, 0);
  h[0] = uint8_t(version);
  h[1] = uint8_t(version >> 8);
  h[4] = 0xff;  // the runtime leaves the unused bits set
  for (int i = 0; i < 8; ++i) h[8 + i] = uint8_t(cycle_frequency >> (8 * i));
  return h;
}

namespace {
void put(std::vector<uint8_t>& out, size_t at, uint64_t v, int n) {
  for (int i = 0; i < n; ++i) out[at + i] = uint8_t(v >> (8 * i));
}
}  // namespace

void basic_function(std::vector<uint8_t>& out, Action a, int32_t func_id, uint64_t tsc, uint32_t tid, uint32_t pid,
                    uint8_t cpu) {
  size_t at = out.size();
  out.resize(at + 32, 0);
  out[at + 2] = cpu;
  out[at + 3] = uint8_t(a);
  put(out, at + 4, uint32_t(func_id), 4);
  put(out, at + 8, tsc, 8);
  put(out, at + 16, tid, 4);
  put(out, at + 20, pid, 4);
}

void basic_argument(std::vector<uint8_t>& out, int32_t func_id, uint32_t tid, uint32_t pid, uint64_t arg) {
  size_t at = out.size();
  out.resize(at + 32, 0);
  out[at] = 1;
  put(out, at + 4, uint32_t(func_id), 4);
  put(out, at + 8, tid, 4);
  put(out, at + 12, pid, 4);
  put(out, at + 16, arg, 8);
}

bool write_file(const std::string& path, const std::vector<uint8_t>& bytes) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok;
}

}  // namespace xray_test
