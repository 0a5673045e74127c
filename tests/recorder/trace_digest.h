// Test helper: reads a UCIR trace back with the project's reader and keeps
// what the recorder tests check (step pcs, syscall records, exit).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "state/error.h"

namespace ttd::rec::test {

struct SyscallRecord {
  uint64_t eid = 0;
  uint64_t number = 0;
  uint64_t ret = 0;
  std::vector<uint64_t> args;
  uint64_t mem_writes = 0;  // kernel memory writes attached to the step
};

struct TraceDigest {
  std::string arch;
  std::string exec_path;  // the program the trace names
  std::vector<std::string> map_names;  // names of the mappings, in trace order
  uint64_t steps = 0;
  std::vector<uint64_t> pcs;  // pc of every step
  std::vector<uint64_t> tids;  // thread of every step
  std::vector<uint64_t> thread_begins, thread_ends;  // thread ids, in the order the reader said so
  std::vector<uint64_t> pc_registers;  // threads whose pc a thread keyframe set
  std::vector<SyscallRecord> syscalls;
  bool thread_ended = false;
};

Result<TraceDigest> read_trace(const std::string& path);

// Paths of the built examples and test programs; empty if not built.
std::string example_path(const std::string& arch, const std::string& name);
std::string probe_path(const std::string& arch);
// programs/<variant>/<name>: variants x86_64 (musl), aarch64, x86_64-glibc
// (static glibc), x86_64-dyn (PIE), x86_64-nopie; empty if not built.
std::string program_path(const std::string& variant, const std::string& name);
// A fresh file name in the temp directory.
std::string temp_trace(const std::string& tag);

}  // namespace ttd::rec::test
