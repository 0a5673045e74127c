#include "ucir_test_support.h"

#include <doctest/doctest.h>

#include <snappy.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "formats/ucir/crc32c.h"
#include "formats/ucir/snappy_frame_writer.h"
#include "formats/ucir/ucir_header.h"
#include "formats/ucir/ucir_reader.h"

namespace ttd::test {

namespace {

std::string hex(uint64_t v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "0x%llx", static_cast<unsigned long long>(v));
  return buf;
}

std::string hex_bytes(std::span<const uint8_t> b) {
  std::string s;
  char buf[4];
  for (uint8_t c : b) {
    std::snprintf(buf, sizeof buf, "%02x", c);
    s += buf;
  }
  return s;
}

}  // namespace

void RecordingSink::begin(const fmt::TraceInfo& i) {
  info = i;
  log.push_back("begin " + i.format);
}
void RecordingSink::step(const fmt::StepInfo& s) {
  steps.push_back(s);
  log.push_back("step pc=" + hex(s.pc) + " size=" + std::to_string(s.size) + " " +
                std::string(fmt::step_kind_name(s.kind)) + " tid=" + std::to_string(s.tid) +
                " pid=" + std::to_string(s.pid));
}
void RecordingSink::attr(std::string_view key, const fmt::AttrValue& v) {
  std::string s = "attr " + std::string(key) + "=";
  if (auto* u = std::get_if<uint64_t>(&v)) s += std::to_string(*u);
  else if (auto* i = std::get_if<int64_t>(&v)) s += std::to_string(*i);
  else if (auto* t = std::get_if<std::string>(&v)) s += *t;
  else if (auto* l = std::get_if<std::vector<uint64_t>>(&v)) {
    s += "[";
    for (size_t k = 0; k < l->size(); ++k) s += (k ? "," : "") + std::to_string((*l)[k]);
    s += "]";
  }
  log.push_back(s);
}
void RecordingSink::reg(uint64_t tid, uint16_t reg, std::span<const uint8_t> value) {
  const auto& a = arch_desc(info.arch);
  std::string name = reg < a.regs.size() ? a.regs[reg].name : "#" + std::to_string(reg);
  // Thread 1 (every usercorn trace) is left out of the line.
  const std::string thread = tid == 1 ? "" : " tid=" + std::to_string(tid);
  if (value.size() <= 8 && a.endian == Endian::Little) {
    uint64_t v = 0;
    for (size_t i = 0; i < value.size(); ++i) v |= uint64_t(value[i]) << (8 * i);
    log.push_back("reg " + name + "=" + hex(v) + thread);
  } else {
    log.push_back("reg " + name + "=bytes:" + hex_bytes(value) + thread);
  }
}
void RecordingSink::reg_unknown(uint64_t, uint16_t reg) { log.push_back("reg_unknown " + std::to_string(reg)); }
void RecordingSink::mem_write(uint64_t, uint64_t addr, std::span<const uint8_t> bytes) {
  log.push_back("write " + hex(addr) + " " + hex_bytes(bytes));
}
void RecordingSink::mem_read(uint64_t, uint64_t addr, uint32_t size, std::span<const uint8_t> bytes) {
  log.push_back("read " + hex(addr) + " " + std::to_string(size) + (bytes.empty() ? "" : " " + hex_bytes(bytes)));
}
void RecordingSink::mem_unknown(uint64_t, uint64_t addr, uint64_t size) {
  log.push_back("unknown " + hex(addr) + " " + hex(size));
}
void RecordingSink::mem_map(uint64_t, uint64_t addr, uint64_t size, uint8_t prot, std::string_view name) {
  log.push_back("map " + hex(addr) + " " + hex(size) + " prot=" + std::to_string(prot) + " " + std::string(name));
}
void RecordingSink::mem_unmap(uint64_t, uint64_t addr, uint64_t size) {
  log.push_back("unmap " + hex(addr) + " " + hex(size));
}
void RecordingSink::mem_protect(uint64_t, uint64_t addr, uint64_t size, uint8_t prot) {
  log.push_back("protect " + hex(addr) + " " + hex(size) + " prot=" + std::to_string(prot));
}
void RecordingSink::thread_begin(uint64_t tid, uint64_t pid) {
  log.push_back("thread_begin " + std::to_string(tid) + " " + std::to_string(pid));
}
void RecordingSink::thread_end(uint64_t tid) { log.push_back("thread_end " + std::to_string(tid)); }
void RecordingSink::end() { log.push_back("end"); }

std::vector<std::string> RecordingSink::after_first_step() const {
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].rfind("step ", 0) == 0) return {log.begin() + long(i), log.end()};
  return {};
}
std::vector<std::string> RecordingSink::before_first_step() const {
  for (size_t i = 0; i < log.size(); ++i)
    if (log[i].rfind("step ", 0) == 0) return {log.begin(), log.begin() + long(i)};
  return log;
}
std::string RecordingSink::property(const std::string& key) const {
  for (const auto& [k, v] : info.properties)
    if (k == key) return v;
  return "";
}

std::string join(const std::vector<std::string>& lines) {
  std::string s = "\n";
  for (const auto& l : lines) s += "  " + l + "\n";
  return s;
}

namespace {
std::string temp_prefix() { return "ttd_ucir_" + std::to_string(getpid()) + "_"; }
}  // namespace

std::string temp_path(const std::string& name) {
  static std::atomic<int> counter{0};
  auto dir = std::filesystem::temp_directory_path();
  return (dir / (temp_prefix() + std::to_string(counter++) + "_" + name)).string();
}

void remove_temp_files() {
  std::error_code ec;
  const std::string prefix = temp_prefix();
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::temp_directory_path(), ec))
    if (entry.path().filename().string().rfind(prefix, 0) == 0) std::filesystem::remove(entry.path(), ec);
}

std::vector<uint8_t> ucir_header_bytes(const std::string& arch, bool version_little_endian) {
  fmt::ucir::Header h;
  h.arch = arch;
  h.os = "linux";
  h.version_big_endian = !version_little_endian;
  const auto b = fmt::ucir::encode_header(h);
  return {b.begin(), b.end()};
}

std::string write_raw_ucir(std::span<const uint8_t> ops, const std::string& arch, bool version_little_endian) {
  const std::string path = temp_path("raw.ucir");
  std::FILE* f = std::fopen(path.c_str(), "wb");
  const auto head = ucir_header_bytes(arch, version_little_endian);
  std::fwrite(head.data(), 1, head.size(), f);
  fmt::SnappyFrameWriter w(f, path);
  w.write(ops);
  (void)w.finish();
  std::fclose(f);
  return path;
}

void append_stream_identifier(std::vector<uint8_t>& out) {
  const uint8_t id[10] = {0xff, 0x06, 0x00, 0x00, 's', 'N', 'a', 'P', 'p', 'Y'};
  out.insert(out.end(), id, id + 10);
}

void append_chunk(std::vector<uint8_t>& out, uint8_t type, std::span<const uint8_t> payload, bool corrupt_crc) {
  std::vector<uint8_t> body;
  if (type == 0x00 || type == 0x01) {
    uint32_t crc = fmt::crc32c_mask(fmt::crc32c(payload));
    if (corrupt_crc) crc ^= 1;
    for (int i = 0; i < 4; ++i) body.push_back(uint8_t(crc >> (8 * i)));
    if (type == 0x00) {
      std::string c;
      snappy::Compress(reinterpret_cast<const char*>(payload.data()), payload.size(), &c);
      body.insert(body.end(), c.begin(), c.end());
    } else {
      body.insert(body.end(), payload.begin(), payload.end());
    }
  } else {
    body.assign(payload.begin(), payload.end());
  }
  const size_t n = body.size();
  out.push_back(type);
  out.push_back(uint8_t(n));
  out.push_back(uint8_t(n >> 8));
  out.push_back(uint8_t(n >> 16));
  out.insert(out.end(), body.begin(), body.end());
}

std::string write_bytes(const std::string& name, std::span<const uint8_t> bytes) {
  const std::string path = temp_path(name);
  std::ofstream f(path, std::ios::binary);
  f.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
  return path;
}

std::vector<uint8_t> read_bytes(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

Status read_ucir(const std::string& path, RecordingSink& sink) {
  auto r = fmt::UcirReader::open(path);
  if (!r) return r.error();
  Status s = (*r)->read(sink, {});
  if (!dynamic_cast<fmt::BatchSink*>(&sink)) {
    BatchRecordingSink batched;
    Status b = (*r)->read(batched, {});
    CHECK(b.ok() == s.ok());
    if (!b.ok() && !s.ok()) CHECK(b.error().to_string() == s.error().to_string());
    CHECK(join(batched.log) == join(sink.log));
    CHECK(batched.info.properties == sink.info.properties);
  }
  return s;
}

}  // namespace ttd::test
