// The forwarding definitions of libdw's functions (dw_library.h). Each has
// the signature <elfutils/libdw.h> declares, so a mismatch with the header
// is a compile error; each pointer has the type of the header's
// declaration (decltype), so the table cannot drift either.
#include "state/dw_library.h"

#include <elfutils/libdw.h>

#include <atomic>
#include <cstdio>
#include <type_traits>

#include "state/dynamic_library.h"

#ifndef TTD_DW_SONAME
#error "TTD_DW_SONAME (the soname to dlopen) is set by state/CMakeLists.txt"
#endif

namespace ttd::dw_library {
namespace {

#define TTD_DW_FUNCTIONS(X)                                                                              \
  X(dwarf_begin_elf) X(dwarf_end) X(dwarf_getcfi) X(dwarf_getcfi_elf) X(dwarf_cfi_end)                    \
  X(dwarf_cfi_addrframe) X(dwarf_frame_cfa) X(dwarf_frame_register) X(dwarf_nextcu) X(dwarf_offdie)      \
  X(dwarf_addrdie) X(dwarf_getscopes) X(dwarf_child) X(dwarf_siblingof) X(dwarf_tag) X(dwarf_diename)    \
  X(dwarf_dieoffset) X(dwarf_decl_line) X(dwarf_aggregate_size) X(dwarf_attr) X(dwarf_attr_integrate)    \
  X(dwarf_formblock) X(dwarf_formflag) X(dwarf_formref_die) X(dwarf_formsdata) X(dwarf_formudata)        \
  X(dwarf_getlocation_addr) X(dwarf_getsrclines) X(dwarf_onesrcline) X(dwarf_lineaddr) X(dwarf_lineno)   \
  X(dwarf_linecol) X(dwarf_linebeginstatement) X(dwarf_lineendsequence) X(dwarf_linesrc)

TTD_DEFINE_LIBRARY_API(TTD_DW_FUNCTIONS)

// The api when the library is there; nullptr (and the message on stderr,
// once) when it is not.
const Api* api() {
  const Loaded& l = library();
  if (l.status.ok()) return &l.api;
  static std::atomic<bool> told{false};
  if (!told.exchange(true))
    std::fprintf(stderr, "ttd: %s; source lines, variables and DWARF call frames are not read\n",
                 l.status.error().to_string().c_str());
  return nullptr;
}

// What libdw answers for data it cannot read: a null handle, -1, or ~0
// for an offset (DW_TAG_invalid is -1 too).
template <class R>
R failed() {
  if constexpr (std::is_pointer_v<R>)
    return nullptr;
  else
    return R(-1);
}

}  // namespace

std::string file() { return library_file_from_env("TTD_DW_LIBRARY", TTD_DW_SONAME); }
const Status& load() { return library().status; }
bool loaded() { return g_loaded; }

}  // namespace ttd::dw_library

// RET NAME(PARAMS) { forward ARGS, or libdw's failure value }
#define TTD_DW_FORWARD(ret, name, params, args)          \
  ret name params {                                      \
    const auto* a = ttd::dw_library::api();              \
    return a ? a->name args : ttd::dw_library::failed<ret>(); \
  }

extern "C" {

TTD_DW_FORWARD(Dwarf*, dwarf_begin_elf, (Elf* elf, Dwarf_Cmd cmd, Elf_Scn* scngrp), (elf, cmd, scngrp))
TTD_DW_FORWARD(int, dwarf_end, (Dwarf* dwarf), (dwarf))
TTD_DW_FORWARD(Dwarf_CFI*, dwarf_getcfi, (Dwarf* dwarf), (dwarf))
TTD_DW_FORWARD(Dwarf_CFI*, dwarf_getcfi_elf, (Elf* elf), (elf))
TTD_DW_FORWARD(int, dwarf_cfi_end, (Dwarf_CFI* cache), (cache))
TTD_DW_FORWARD(int, dwarf_cfi_addrframe, (Dwarf_CFI* cache, Dwarf_Addr address, Dwarf_Frame** frame),
               (cache, address, frame))
TTD_DW_FORWARD(int, dwarf_frame_cfa, (Dwarf_Frame* frame, Dwarf_Op** ops, size_t* nops), (frame, ops, nops))
TTD_DW_FORWARD(int, dwarf_frame_register,
               (Dwarf_Frame* frame, int regno, Dwarf_Op ops_mem[3], Dwarf_Op** ops, size_t* nops),
               (frame, regno, ops_mem, ops, nops))
TTD_DW_FORWARD(int, dwarf_nextcu,
               (Dwarf* dwarf, Dwarf_Off off, Dwarf_Off* next_off, size_t* header_sizep, Dwarf_Off* abbrev_offsetp,
                uint8_t* address_sizep, uint8_t* offset_sizep),
               (dwarf, off, next_off, header_sizep, abbrev_offsetp, address_sizep, offset_sizep))
TTD_DW_FORWARD(Dwarf_Die*, dwarf_offdie, (Dwarf* dbg, Dwarf_Off offset, Dwarf_Die* result), (dbg, offset, result))
TTD_DW_FORWARD(Dwarf_Die*, dwarf_addrdie, (Dwarf* dbg, Dwarf_Addr addr, Dwarf_Die* result), (dbg, addr, result))
TTD_DW_FORWARD(int, dwarf_getscopes, (Dwarf_Die* cudie, Dwarf_Addr pc, Dwarf_Die** scopes), (cudie, pc, scopes))
TTD_DW_FORWARD(int, dwarf_child, (Dwarf_Die* die, Dwarf_Die* result), (die, result))
TTD_DW_FORWARD(int, dwarf_siblingof, (Dwarf_Die* die, Dwarf_Die* result), (die, result))
TTD_DW_FORWARD(int, dwarf_tag, (Dwarf_Die* die), (die))
TTD_DW_FORWARD(const char*, dwarf_diename, (Dwarf_Die* die), (die))
TTD_DW_FORWARD(Dwarf_Off, dwarf_dieoffset, (Dwarf_Die* die), (die))
TTD_DW_FORWARD(int, dwarf_decl_line, (Dwarf_Die* decl, int* linep), (decl, linep))
TTD_DW_FORWARD(int, dwarf_aggregate_size, (Dwarf_Die* die, Dwarf_Word* size), (die, size))
TTD_DW_FORWARD(Dwarf_Attribute*, dwarf_attr, (Dwarf_Die* die, unsigned int search_name, Dwarf_Attribute* result),
               (die, search_name, result))
TTD_DW_FORWARD(Dwarf_Attribute*, dwarf_attr_integrate,
               (Dwarf_Die* die, unsigned int search_name, Dwarf_Attribute* result), (die, search_name, result))
TTD_DW_FORWARD(int, dwarf_formblock, (Dwarf_Attribute* attr, Dwarf_Block* return_block), (attr, return_block))
TTD_DW_FORWARD(int, dwarf_formflag, (Dwarf_Attribute* attr, bool* return_bool), (attr, return_bool))
TTD_DW_FORWARD(Dwarf_Die*, dwarf_formref_die, (Dwarf_Attribute* attr, Dwarf_Die* die_mem), (attr, die_mem))
TTD_DW_FORWARD(int, dwarf_formsdata, (Dwarf_Attribute* attr, Dwarf_Sword* return_uval), (attr, return_uval))
TTD_DW_FORWARD(int, dwarf_formudata, (Dwarf_Attribute* attr, Dwarf_Word* return_uval), (attr, return_uval))
TTD_DW_FORWARD(int, dwarf_getlocation_addr,
               (Dwarf_Attribute* attr, Dwarf_Addr address, Dwarf_Op** exprs, size_t* exprlens, size_t nlocs),
               (attr, address, exprs, exprlens, nlocs))
TTD_DW_FORWARD(int, dwarf_getsrclines, (Dwarf_Die* cudie, Dwarf_Lines** lines, size_t* nlines), (cudie, lines, nlines))
TTD_DW_FORWARD(Dwarf_Line*, dwarf_onesrcline, (Dwarf_Lines* lines, size_t idx), (lines, idx))
TTD_DW_FORWARD(int, dwarf_lineaddr, (Dwarf_Line* line, Dwarf_Addr* addrp), (line, addrp))
TTD_DW_FORWARD(int, dwarf_lineno, (Dwarf_Line* line, int* linep), (line, linep))
TTD_DW_FORWARD(int, dwarf_linecol, (Dwarf_Line* line, int* colp), (line, colp))
TTD_DW_FORWARD(int, dwarf_linebeginstatement, (Dwarf_Line* line, bool* flagp), (line, flagp))
TTD_DW_FORWARD(int, dwarf_lineendsequence, (Dwarf_Line* line, bool* flagp), (line, flagp))
TTD_DW_FORWARD(const char*, dwarf_linesrc, (Dwarf_Line* line, Dwarf_Word* mtime, Dwarf_Word* length),
               (line, mtime, length))

}  // extern "C"
