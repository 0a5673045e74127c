// Thread ids as RSP writes them: "<tid>" or, once multiprocess is
// negotiated, "p<pid>.<tid>" (all hex). "-1" means all threads, "0" any
// thread; "p<pid>" alone means all threads of that process.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace ttd::gdb {

struct IdSel {
  enum class Kind : uint8_t { Any, All, Specific };
  Kind kind = Kind::Any;
  uint64_t value = 0;  // meaningful when kind == Specific

  static IdSel any() { return {}; }
  static IdSel all() { return {Kind::All, 0}; }
  static IdSel specific(uint64_t v) { return {Kind::Specific, v}; }
  bool is_specific() const { return kind == Kind::Specific; }
  bool operator==(const IdSel&) const = default;
};

struct ThreadSel {
  std::optional<IdSel> pid;  // present only in the p<pid>.<tid> form
  IdSel tid;
  bool operator==(const ThreadSel&) const = default;
};

// Accepts both forms in full; nullopt for anything else (empty, non-hex,
// a dangling "p", trailing characters).
std::optional<ThreadSel> parse_thread_sel(std::string_view field);

// On the wire 0 means "any" and -1 "all", so a trace's pid or tid 0 cannot
// be sent as is: it travels as kWireIdForZero and is mapped back on input.
// Every id the stub writes or reads goes through these two functions.
inline constexpr uint64_t kWireIdForZero = 0x7fffffff;
inline uint64_t to_wire_id(uint64_t id) { return id == 0 ? kWireIdForZero : id; }
inline uint64_t from_wire_id(uint64_t id) { return id == kWireIdForZero ? 0 : id; }

// "p1.2a" with multiprocess, "2a" without (ids are target ids; the
// function applies to_wire_id).
std::string format_thread_id(uint64_t pid, uint64_t tid, bool multiprocess);

}  // namespace ttd::gdb
