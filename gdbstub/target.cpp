#include "gdbstub/target.h"

#include "state/target_xml.h"

namespace ttd::gdb {

std::optional<MemoryRegionDesc> Target::memory_region(uint64_t, uint64_t) const { return std::nullopt; }

MonitorReply Target::monitor(std::string_view) { return {"monitor commands are not supported by this target\n", false}; }

MonitorReply Target::monitor(std::string_view command, const MonitorOutput&, const InterruptCheck&) {
  return monitor(command);
}

std::string Target::target_description() const { return ttd::target_xml(arch()); }

std::string Target::thread_extra_info(uint64_t tid) const {
  for (const auto& t : threads())
    if (t.tid == tid) return t.name;
  return {};
}

uint64_t Target::pid() const {
  auto all = threads();
  uint64_t current = current_thread();
  for (const auto& t : all)
    if (t.tid == current) return t.pid;
  return all.empty() ? 1 : all.front().pid;
}

}  // namespace ttd::gdb
