#include "sample_traces.h"

#include <cstdio>
#include <filesystem>
#include <vector>

#include "formats/ucir/snappy_frame_writer.h"
#include "formats/ucir/ucir_op_encoder.h"
#include "formats/ucir/ucir_writer.h"
#include "ucir_test_support.h"

namespace ttd::test {

using namespace fmt::ucir;

namespace {

uint16_t idx(ArchId a, const char* name) { return *arch_desc(a).find(name); }

// Unicorn 1.x numbers used by the raw builders.
constexpr uint16_t kUc1Rax = 35, kUc1Rsp = 44, kUc1Rdi = 39, kUc1Rcx = 38;

bool write_raw(const std::string& path, const std::vector<uint8_t>& ops, const std::string& arch, bool le) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return false;
  const auto head = ucir_header_bytes(arch, le);
  std::fwrite(head.data(), 1, head.size(), f);
  fmt::SnappyFrameWriter w(f, path);
  w.write(ops);
  const bool ok = w.finish().ok();
  return std::fclose(f) == 0 && ok;
}

std::string write_bytes_to(const std::string& path, const std::vector<uint8_t>& bytes) {
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) return "";
  const bool ok = std::fwrite(bytes.data(), 1, bytes.size(), f) == bytes.size();
  return std::fclose(f) == 0 && ok ? path : "";
}

}  // namespace

std::string write_sample_x86_64(const std::string& path) {
  const ArchId a = ArchId::X86_64;
  auto w = fmt::UcirWriter::create(path, a).value().release();
  std::unique_ptr<fmt::UcirWriter> guard(w);
  const uint8_t code[] = {0x48, 0xc7, 0xc0, 0x01, 0x00, 0x00, 0x00,  // mov rax, 1
                          0x0f, 0x05,                                // syscall
                          0x48, 0x89, 0x04, 0x24,                    // mov [rsp], rax
                          0x0f, 0x05};                               // syscall
  w->begin_keyframe();
  w->reg_u64(idx(a, "rax"), 0x1234);
  w->reg_u64(idx(a, "rsp"), 0x7ff000);
  w->mem_map(0x400000, 0x1000, 5, "exe", "/bin/sample", 0, 0x1000);
  w->mem_write(0x400000, code);
  w->mem_map(0x7fe000, 0x2000, 3, "stack");
  w->end_keyframe();

  w->begin_frame();
  w->jmp(0x400000, 9);
  w->reg_u64(idx(a, "rax"), 1);
  w->step(7);
  w->step(2);
  const uint64_t args[] = {1, 0x7ff000, 4};
  w->begin_syscall(1, 4, args);
  w->mem_read(0x7ff000, 4);
  w->reg_u64(idx(a, "rax"), 4);
  w->end_syscall();
  w->begin_frame();
  w->jmp(0x400009, 6);
  const uint8_t val[8] = {4, 0, 0, 0, 0, 0, 0, 0};
  w->mem_write(0x7ff000, val);
  w->step(4);
  w->reg_u64(idx(a, "rax"), 60);
  w->step(2);
  const uint64_t exit_args[] = {0};
  w->begin_syscall(231, 0, exit_args);
  w->exit();
  w->end_syscall();
  (void)w->close();
  return path;
}

std::vector<uint8_t> usercorn_style_x86_64_ops() {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  const uint8_t code[] = {0x48, 0x31, 0xff, 0xb8, 0x3c, 0x00, 0x00, 0x00, 0x0f, 0x05};  // xor rdi,rdi; mov eax,60; syscall
  // Keyframe: non-zero registers (no pc), then MAP + one trimmed write per
  // mapping. The code page starts with non-zero bytes, the stack's data is
  // trimmed (its real offset is lost).
  std::vector<uint8_t> kf;
  OpEncoder k(kf);
  k.reg(kUc1Rsp, 0x7ff000);
  k.reg(kUc1Rdi, 7);
  k.mem_map(0x400000, 0x1000, 5, 0, 0x1000, "", "/bin/exit60");
  k.mem_write(0x400000, code);
  k.mem_map(0x7fe000, 0x2000, 3, 0, 0, "stack", "");
  const uint8_t stack_data[] = {0x2f, 0x62, 0x69, 0x6e};
  k.mem_write(0x7fe000, stack_data);
  e.frame_header(OP_KEYFRAME, 0, 6);
  e.bytes(kf);
  // One frame: JMP, xor (regs, STEP), mov (regs, STEP), then usercorn's
  // exit order: SYSCALL{EXIT}, EXIT, registers, OP_STEP of the syscall.
  e.frame_header(OP_FRAME, 0, 9);
  e.jmp(0x400000, 10);
  e.reg(kUc1Rdi, 0);
  e.step(3);
  e.reg(kUc1Rax, 60);
  e.step(5);
  const uint64_t args[] = {0};
  e.syscall_header(60, 0, args, 1);
  e.exit();
  e.exit();
  e.reg(kUc1Rcx, 0x40000a);
  e.step(2);
  return ops;
}

std::string write_usercorn_style_x86_64(const std::string& path) {
  return write_raw(path, usercorn_style_x86_64_ops(), "x86_64", false) ? path : "";
}

std::vector<uint8_t> i386_ops() {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  std::vector<uint8_t> kf;
  OpEncoder k(kf);
  k.reg(19, 0x11223344);  // UC_X86_REG_EAX in 1.x
  k.mem_map(0x8048000, 0x1000, 5, 0, 0, "exe", "");
  const uint8_t code[] = {0x40, 0x90};  // inc eax; nop
  k.mem_write(0x8048000, code);
  e.frame_header(OP_KEYFRAME, 0, 3);
  e.bytes(kf);
  e.frame_header(OP_FRAME, 0, 4);
  e.jmp(0x8048000, 2);
  e.reg(19, 0x11223345);
  e.step(1);
  e.step(1);
  return ops;
}

std::string write_sample_i386_le_version(const std::string& path) {
  return write_raw(path, i386_ops(), "x86", true) ? path : "";
}

// usercorn's trimmed code mapping naming a backing file that exists on
// every Debian system but does not agree (its ELF header goes on past the
// trimmed bytes): reaches the backing-file check, which reads at most the
// mapping's 4 KiB and leaves the mapping unknown.
static std::vector<uint8_t> usercorn_backing_file_ops() {
  std::vector<uint8_t> ops;
  OpEncoder e(ops);
  std::vector<uint8_t> kf;
  OpEncoder k(kf);
  k.mem_map(0x400000, 0x2000, 5, 0, 0x1000, "exe", "/bin/sh");
  const uint8_t elf[] = {0x7f, 'E', 'L', 'F', 2, 1, 1};
  k.mem_write(0x400000, elf);
  e.frame_header(OP_KEYFRAME, 0, 2);
  e.bytes(kf);
  e.frame_header(OP_FRAME, 0, 2);
  e.jmp(0x400000, 1);
  e.step(1);
  return ops;
}

bool write_seed_corpus(const std::string& dir) {
  std::filesystem::create_directories(dir);
  // fuzz_ucir also re-frames everything after the 74-byte header as one
  // valid raw chunk; header + bare ops seeds reach the op parser that way.
  auto bare = [&](const std::string& name, const std::string& arch, const std::vector<uint8_t>& ops) {
    std::vector<uint8_t> b = ucir_header_bytes(arch);
    b.insert(b.end(), ops.begin(), ops.end());
    return !write_bytes_to(dir + "/" + name, b).empty();
  };
  return !write_sample_x86_64(dir + "/writer_x86_64.ucir").empty() &&
         !write_usercorn_style_x86_64(dir + "/usercorn_style_x86_64.ucir").empty() &&
         !write_sample_i386_le_version(dir + "/i386_le_version.ucir").empty() &&
         bare("bare_ops_usercorn_style_x86_64", "x86_64", usercorn_style_x86_64_ops()) &&
         bare("bare_ops_i386", "x86", i386_ops()) &&
         write_raw(dir + "/usercorn_backing_file_x86_64.ucir", usercorn_backing_file_ops(), "x86_64", false) &&
         bare("bare_ops_usercorn_backing_file", "x86_64", usercorn_backing_file_ops());
}

}  // namespace ttd::test
