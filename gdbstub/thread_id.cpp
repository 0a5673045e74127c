#include "gdbstub/thread_id.h"

#include "gdbstub/hex.h"

namespace ttd::gdb {

namespace {

std::optional<IdSel> parse_id(std::string_view field) {
  if (field == "-1") return IdSel::all();
  auto v = parse_hex_u64(field);
  if (!v) return std::nullopt;
  return *v == 0 ? IdSel::any() : IdSel::specific(from_wire_id(*v));
}

}  // namespace

std::optional<ThreadSel> parse_thread_sel(std::string_view field) {
  if (field.empty()) return std::nullopt;
  if (field[0] != 'p') {
    auto tid = parse_id(field);
    if (!tid) return std::nullopt;
    return ThreadSel{std::nullopt, *tid};
  }
  field.remove_prefix(1);
  size_t dot = field.find('.');
  auto pid = parse_id(field.substr(0, dot));
  if (!pid) return std::nullopt;
  if (dot == std::string_view::npos) return ThreadSel{*pid, IdSel::all()};
  auto tid = parse_id(field.substr(dot + 1));
  if (!tid) return std::nullopt;
  return ThreadSel{*pid, *tid};
}

std::string format_thread_id(uint64_t pid, uint64_t tid, bool multiprocess) {
  if (!multiprocess) return hex_number(to_wire_id(tid));
  return "p" + hex_number(to_wire_id(pid)) + "." + hex_number(to_wire_id(tid));
}

}  // namespace ttd::gdb
