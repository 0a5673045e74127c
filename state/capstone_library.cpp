// The forwarding definitions of Capstone's functions (capstone_library.h).
// Each has the signature <capstone/capstone.h> declares, so a mismatch with
// the header is a compile error; each pointer has the type of the header's
// declaration (decltype), so the table cannot drift either.
#include "state/capstone_library.h"

#include <capstone/capstone.h>

#include <atomic>
#include <cstdio>

#include "state/dynamic_library.h"

#ifndef TTD_CAPSTONE_SONAME
#error "TTD_CAPSTONE_SONAME (the soname to dlopen) is set by state/CMakeLists.txt"
#endif

namespace ttd::capstone_library {
namespace {

#define TTD_CAPSTONE_FUNCTIONS(X) \
  X(cs_version) X(cs_support) X(cs_open) X(cs_close) X(cs_option) X(cs_errno) X(cs_strerror) \
  X(cs_disasm) X(cs_free) X(cs_malloc) X(cs_disasm_iter) X(cs_reg_name) X(cs_insn_name) \
  X(cs_group_name) X(cs_insn_group) X(cs_reg_read) X(cs_reg_write) X(cs_op_count) X(cs_op_index) \
  X(cs_regs_access)

TTD_DEFINE_LIBRARY_API(TTD_CAPSTONE_FUNCTIONS)

// The api when the library is there; nullptr (and the message on stderr,
// once) when it is not.
const Api* api() {
  const Loaded& l = library();
  if (l.status.ok()) return &l.api;
  static std::atomic<bool> told{false};
  if (!told.exchange(true))
    std::fprintf(stderr, "ttd: %s; instructions are not disassembled\n", l.status.error().to_string().c_str());
  return nullptr;
}

}  // namespace

std::string file() { return library_file_from_env("TTD_CAPSTONE_LIBRARY", TTD_CAPSTONE_SONAME); }
const Status& load() { return library().status; }
bool loaded() { return g_loaded; }

}  // namespace ttd::capstone_library

using ttd::capstone_library::api;

extern "C" {

unsigned int cs_version(int* major, int* minor) {
  const auto* a = api();
  return a ? a->cs_version(major, minor) : 0;
}
bool cs_support(int query) {
  const auto* a = api();
  return a && a->cs_support(query);
}
cs_err cs_open(cs_arch arch, cs_mode mode, csh* handle) {
  const auto* a = api();
  return a ? a->cs_open(arch, mode, handle) : CS_ERR_ARCH;
}
cs_err cs_close(csh* handle) {
  const auto* a = api();
  return a ? a->cs_close(handle) : CS_ERR_HANDLE;
}
cs_err cs_option(csh handle, cs_opt_type type, size_t value) {
  const auto* a = api();
  return a ? a->cs_option(handle, type, value) : CS_ERR_HANDLE;
}
cs_err cs_errno(csh handle) {
  const auto* a = api();
  return a ? a->cs_errno(handle) : CS_ERR_HANDLE;
}
const char* cs_strerror(cs_err code) {
  const auto& l = ttd::capstone_library::load();
  if (!l.ok()) {
    static const std::string message = l.error().to_string();
    return message.c_str();
  }
  return api()->cs_strerror(code);
}
size_t cs_disasm(csh handle, const uint8_t* code, size_t code_size, uint64_t address, size_t count, cs_insn** insn) {
  const auto* a = api();
  return a ? a->cs_disasm(handle, code, code_size, address, count, insn) : 0;
}
void cs_free(cs_insn* insn, size_t count) {
  if (const auto* a = api()) a->cs_free(insn, count);
}
cs_insn* cs_malloc(csh handle) {
  const auto* a = api();
  return a ? a->cs_malloc(handle) : nullptr;
}
bool cs_disasm_iter(csh handle, const uint8_t** code, size_t* size, uint64_t* address, cs_insn* insn) {
  const auto* a = api();
  return a && a->cs_disasm_iter(handle, code, size, address, insn);
}
const char* cs_reg_name(csh handle, unsigned int reg_id) {
  const auto* a = api();
  return a ? a->cs_reg_name(handle, reg_id) : nullptr;
}
const char* cs_insn_name(csh handle, unsigned int insn_id) {
  const auto* a = api();
  return a ? a->cs_insn_name(handle, insn_id) : nullptr;
}
const char* cs_group_name(csh handle, unsigned int group_id) {
  const auto* a = api();
  return a ? a->cs_group_name(handle, group_id) : nullptr;
}
bool cs_insn_group(csh handle, const cs_insn* insn, unsigned int group_id) {
  const auto* a = api();
  return a && a->cs_insn_group(handle, insn, group_id);
}
bool cs_reg_read(csh handle, const cs_insn* insn, unsigned int reg_id) {
  const auto* a = api();
  return a && a->cs_reg_read(handle, insn, reg_id);
}
bool cs_reg_write(csh handle, const cs_insn* insn, unsigned int reg_id) {
  const auto* a = api();
  return a && a->cs_reg_write(handle, insn, reg_id);
}
int cs_op_count(csh handle, const cs_insn* insn, unsigned int op_type) {
  const auto* a = api();
  return a ? a->cs_op_count(handle, insn, op_type) : -1;
}
int cs_op_index(csh handle, const cs_insn* insn, unsigned int op_type, unsigned int position) {
  const auto* a = api();
  return a ? a->cs_op_index(handle, insn, op_type, position) : -1;
}
cs_err cs_regs_access(csh handle, const cs_insn* insn, cs_regs regs_read, uint8_t* regs_read_count,
                      cs_regs regs_write, uint8_t* regs_write_count) {
  const auto* a = api();
  return a ? a->cs_regs_access(handle, insn, regs_read, regs_read_count, regs_write, regs_write_count)
           : CS_ERR_HANDLE;
}

}  // extern "C"
