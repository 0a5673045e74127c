// The forwarding definitions of Unicorn's functions (unicorn_library.h).
// Each has the signature <unicorn/unicorn.h> declares (a mismatch is a
// compile error); each pointer has the type of the header's declaration.
#include "state/unicorn_library.h"

#include <unicorn/unicorn.h>

#include <atomic>
#include <cstdarg>

#include "state/dynamic_library.h"

#ifndef TTD_UNICORN_SONAME
#error "TTD_UNICORN_SONAME (the soname to dlopen) is set by state/CMakeLists.txt"
#endif

namespace ttd::unicorn_library {
namespace {

#define TTD_UNICORN_FUNCTIONS(X)                                                                    \
  X(uc_version) X(uc_arch_supported) X(uc_open) X(uc_close) X(uc_query) X(uc_errno) X(uc_strerror) \
  X(uc_reg_write) X(uc_reg_read) X(uc_reg_write_batch) X(uc_reg_read_batch) X(uc_mem_write)        \
  X(uc_mem_read) X(uc_emu_start) X(uc_emu_stop) X(uc_hook_add) X(uc_hook_del) X(uc_mem_map)       \
  X(uc_mem_map_ptr) X(uc_mem_unmap) X(uc_mem_protect) X(uc_mem_regions) X(uc_context_alloc)       \
  X(uc_free) X(uc_context_save) X(uc_context_reg_write) X(uc_context_reg_read)                     \
  X(uc_context_restore) X(uc_context_size) X(uc_context_free) X(uc_mmio_map) X(uc_ctl)

TTD_DEFINE_LIBRARY_API(TTD_UNICORN_FUNCTIONS)

const Api* api() {
  const Loaded& l = library();
  return l.status.ok() ? &l.api : nullptr;
}

}  // namespace

std::string file() { return library_file_from_env("TTD_UNICORN_LIBRARY", TTD_UNICORN_SONAME); }
const Status& load() { return library().status; }
bool loaded() { return g_loaded; }

}  // namespace ttd::unicorn_library

using ttd::unicorn_library::api;

// Forwards a call that returns uc_err; UC_ERR_HANDLE without the library.
#define TTD_FORWARD(name, ...)             \
  const auto* a = api();                   \
  return a ? a->name(__VA_ARGS__) : UC_ERR_HANDLE

extern "C" {

unsigned int uc_version(unsigned int* major, unsigned int* minor) {
  const auto* a = api();
  return a ? a->uc_version(major, minor) : 0;
}
bool uc_arch_supported(uc_arch arch) {
  const auto* a = api();
  return a && a->uc_arch_supported(arch);
}
uc_err uc_open(uc_arch arch, uc_mode mode, uc_engine** uc) {
  const auto* a = api();
  return a ? a->uc_open(arch, mode, uc) : UC_ERR_ARCH;
}
uc_err uc_close(uc_engine* uc) { TTD_FORWARD(uc_close, uc); }
uc_err uc_query(uc_engine* uc, uc_query_type type, size_t* result) { TTD_FORWARD(uc_query, uc, type, result); }
uc_err uc_errno(uc_engine* uc) { TTD_FORWARD(uc_errno, uc); }
const char* uc_strerror(uc_err code) {
  const auto& l = ttd::unicorn_library::load();
  if (!l.ok()) {
    static const std::string message = l.error().to_string();
    return message.c_str();
  }
  return api()->uc_strerror(code);
}
uc_err uc_reg_write(uc_engine* uc, int regid, const void* value) { TTD_FORWARD(uc_reg_write, uc, regid, value); }
uc_err uc_reg_read(uc_engine* uc, int regid, void* value) { TTD_FORWARD(uc_reg_read, uc, regid, value); }
uc_err uc_reg_write_batch(uc_engine* uc, int* regs, void* const* vals, int count) {
  TTD_FORWARD(uc_reg_write_batch, uc, regs, vals, count);
}
uc_err uc_reg_read_batch(uc_engine* uc, int* regs, void** vals, int count) {
  TTD_FORWARD(uc_reg_read_batch, uc, regs, vals, count);
}
uc_err uc_mem_write(uc_engine* uc, uint64_t address, const void* bytes, size_t size) {
  TTD_FORWARD(uc_mem_write, uc, address, bytes, size);
}
uc_err uc_mem_read(uc_engine* uc, uint64_t address, void* bytes, size_t size) {
  TTD_FORWARD(uc_mem_read, uc, address, bytes, size);
}
uc_err uc_emu_start(uc_engine* uc, uint64_t begin, uint64_t until, uint64_t timeout, size_t count) {
  TTD_FORWARD(uc_emu_start, uc, begin, until, timeout, count);
}
uc_err uc_emu_stop(uc_engine* uc) { TTD_FORWARD(uc_emu_stop, uc); }
// The variadic tail is what the hook type takes (unicorn.h): the
// instruction id for UC_HOOK_INSN, opcode and flags for UC_HOOK_TCG_OPCODE,
// nothing otherwise.
uc_err uc_hook_add(uc_engine* uc, uc_hook* hh, int type, void* callback, void* user_data, uint64_t begin,
                   uint64_t end, ...) {
  const auto* a = api();
  if (!a) return UC_ERR_HANDLE;
  va_list ap;
  va_start(ap, end);
  uc_err err;
  if (type & UC_HOOK_INSN) {
    int insn = va_arg(ap, int);
    err = a->uc_hook_add(uc, hh, type, callback, user_data, begin, end, insn);
  } else if (type & UC_HOOK_TCG_OPCODE) {
    int opcode = va_arg(ap, int);
    int flags = va_arg(ap, int);
    err = a->uc_hook_add(uc, hh, type, callback, user_data, begin, end, opcode, flags);
  } else {
    err = a->uc_hook_add(uc, hh, type, callback, user_data, begin, end);
  }
  va_end(ap);
  return err;
}
uc_err uc_hook_del(uc_engine* uc, uc_hook hh) { TTD_FORWARD(uc_hook_del, uc, hh); }
uc_err uc_mem_map(uc_engine* uc, uint64_t address, size_t size, uint32_t perms) {
  TTD_FORWARD(uc_mem_map, uc, address, size, perms);
}
uc_err uc_mem_map_ptr(uc_engine* uc, uint64_t address, size_t size, uint32_t perms, void* ptr) {
  TTD_FORWARD(uc_mem_map_ptr, uc, address, size, perms, ptr);
}
uc_err uc_mem_unmap(uc_engine* uc, uint64_t address, size_t size) { TTD_FORWARD(uc_mem_unmap, uc, address, size); }
uc_err uc_mmio_map(uc_engine* uc, uint64_t address, size_t size, uc_cb_mmio_read_t read_cb, void* user_data_read,
                   uc_cb_mmio_write_t write_cb, void* user_data_write) {
  TTD_FORWARD(uc_mmio_map, uc, address, size, read_cb, user_data_read, write_cb, user_data_write);
}
// Only the controls without arguments are forwarded (the translation
// cache flush); the others answer UC_ERR_ARG.
uc_err uc_ctl(uc_engine* uc, uc_control_type control, ...) {
  if (control != UC_CTL_WRITE(UC_CTL_TB_FLUSH, 0)) return UC_ERR_ARG;
  TTD_FORWARD(uc_ctl, uc, control);
}
uc_err uc_mem_protect(uc_engine* uc, uint64_t address, size_t size, uint32_t perms) {
  TTD_FORWARD(uc_mem_protect, uc, address, size, perms);
}
uc_err uc_mem_regions(uc_engine* uc, uc_mem_region** regions, uint32_t* count) {
  TTD_FORWARD(uc_mem_regions, uc, regions, count);
}
uc_err uc_context_alloc(uc_engine* uc, uc_context** context) { TTD_FORWARD(uc_context_alloc, uc, context); }
uc_err uc_free(void* mem) { TTD_FORWARD(uc_free, mem); }
uc_err uc_context_save(uc_engine* uc, uc_context* context) { TTD_FORWARD(uc_context_save, uc, context); }
uc_err uc_context_reg_write(uc_context* ctx, int regid, const void* value) {
  TTD_FORWARD(uc_context_reg_write, ctx, regid, value);
}
uc_err uc_context_reg_read(uc_context* ctx, int regid, void* value) {
  TTD_FORWARD(uc_context_reg_read, ctx, regid, value);
}
uc_err uc_context_restore(uc_engine* uc, uc_context* context) { TTD_FORWARD(uc_context_restore, uc, context); }
size_t uc_context_size(uc_engine* uc) {
  const auto* a = api();
  return a ? a->uc_context_size(uc) : 0;
}
uc_err uc_context_free(uc_context* context) { TTD_FORWARD(uc_context_free, context); }

}  // extern "C"
