// Tracer setups shared by the tests: the guest programs with two threads,
// a context change, and optionally an instrumentation gap.
#pragma once
#include "guest_programs.h"
#include "unicorn_umtrace_tracer.h"

namespace ttd::test {

inline GuestRegion data_block(uint64_t base, uint64_t seed) {
  GuestRegion r{base, 0x1000, std::vector<uint8_t>(0x400)};
  for (size_t i = 0; i < r.init.size(); ++i) r.init[i] = uint8_t(seed * 31 + i * 7 + (i >> 3));
  return r;
}

inline UmtraceTracerSetup guest64_setup() {
  UmtraceTracerSetup s;
  s.arch = ArchId::X86_64;
  s.code_base = 0x400000;
  s.code = kGuest64;
  s.exit_address = s.code_base + kGuest64Done;
  s.regions = {data_block(0x10000, 1), data_block(0x20000, 2), GuestRegion{0x30000, 0x2000, {}},
               GuestRegion{0x40000, 0x2000, {}}, GuestRegion{0x50000, 0x1000, {}}};
  s.threads = {GuestThreadSetup{0x1004, 0x50000, {{"rip", s.code_base}, {"rsp", 0x31ff0}, {"rdi", 0x10000}, {"rsi", 12}}, 0},
               GuestThreadSetup{0x1008, 0x50800, {{"rip", s.code_base}, {"rsp", 0x41ff0}, {"rdi", 0x20000}, {"rsi", 9}}, 20}};
  s.quantum = 7;
  s.context_changes = {30, 195};
  s.options.xml = {{"CPU/Vendor", "GenuineIntel"}, {"OS/Version", "6.1.7601"}, {"Pin/Version", "2.14"},
                   {"Xed/Version", "20150121"}, {"App/ProcessID", "4242"},
                   {"App/ImagePath", "C:\\ttd\\guest.exe"}, {"App/CommandLine", "guest.exe --twice"},
                   {"RawTrace/Path", "D:\\traces\\guest.raw"}, {"UMTracer/Version", "4.0"}};
  return s;
}

inline UmtraceTracerSetup guest32_setup() {
  UmtraceTracerSetup s;
  s.arch = ArchId::I386;
  s.code_base = 0x400000;
  s.code = kGuest32;
  s.exit_address = s.code_base + kGuest32Done;
  s.regions = {data_block(0x10000, 3), data_block(0x20000, 4), GuestRegion{0x30000, 0x2000, {}},
               GuestRegion{0x40000, 0x2000, {}}, GuestRegion{0x50000, 0x1000, {}}};
  s.threads = {GuestThreadSetup{0x2004, 0x50000, {{"eip", s.code_base}, {"esp", 0x31ff0}, {"edi", 0x10000}, {"esi", 10}}, 0},
               GuestThreadSetup{0x2008, 0x50800, {{"eip", s.code_base}, {"esp", 0x41ff0}, {"edi", 0x20000}, {"esi", 7}}, 11}};
  s.quantum = 6;
  s.context_changes = {40, 130};
  s.options.exec_version = 0;
  s.options.ins_record_version = 0;
  s.options.xml = {{"Xed/Version", "20140106"}, {"App/ProcessID", "0x99"}, {"App/CommandLine", "guest32.exe"}};
  return s;
}

}  // namespace ttd::test
