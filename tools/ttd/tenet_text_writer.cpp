#include "tools/ttd/tenet_text_writer.h"

#include <algorithm>

#include "engine/cursor.h"
#include "engine/export/output_stream.h"
#include "formats/tenet/tenet_arch.h"

namespace ttd::cli {

namespace {

void hex_number(std::string& out, std::span<const uint8_t> b, Endian e) {
  static const char* kHex = "0123456789abcdef";
  out += "0x";
  size_t n = b.size();
  bool started = false;
  for (size_t i = 0; i < n; ++i) {
    uint8_t v = e == Endian::Little ? b[n - 1 - i] : b[i];
    if (!started && v == 0 && i + 1 < n) continue;
    if (!started && v < 16) {
      out.push_back(kHex[v]);
    } else {
      out.push_back(kHex[v >> 4]);
      out.push_back(kHex[v & 15]);
    }
    started = true;
  }
}

void hex_bytes(std::string& out, const uint8_t* p, size_t n) {
  static const char* kHex = "0123456789abcdef";
  for (size_t i = 0; i < n; ++i) {
    out.push_back(kHex[p[i] >> 4]);
    out.push_back(kHex[p[i] & 15]);
  }
}

void hex_u64(std::string& out, uint64_t v) {
  char b[24];
  int n = std::snprintf(b, sizeof b, "0x%llx", (unsigned long long)v);
  out.append(b, size_t(n));
}

}  // namespace

Result<TenetWriteResult> write_tenet(std::shared_ptr<const Trace> t, const std::string& path, bool drop_events) {
  const ArchDesc& arch = t->arch();
  if (arch.id != ArchId::X86_64 && arch.id != ArchId::I386 && arch.id != ArchId::AArch64 && arch.id != ArchId::Arm &&
      arch.id != ArchId::Ppc32)
    return make_error(t->path(), "Tenet traces hold x86-64, x86, aarch64, arm or (ttd's extension) ppc32; this trace is " +
                                     arch.name);
  if (t->threads().size() > 1)
    return make_error(t->path(), "Tenet holds one thread per file; this trace has " + std::to_string(t->threads().size()) +
                                     " (convert --to ucir keeps them)");
  // PowerPC's pc as Linux's ptrace calls it: a name only PowerPC has, so
  // even a trace without register values names its architecture.
  const std::string pc_name = arch.id == ArchId::Ppc32 ? "nip" : arch.regs[arch.pc_index].name;
  auto out = exporting::OutputStream::open(path);
  if (!out) return out.error();
  TenetWriteResult res;
  Cursor c(t);
  if (auto s = c.seek(0); !s) return s.error();
  std::string line;
  // Line 0: every register known at EID 0 (the reader zeroes the Tenet set's
  // registers a first line leaves out; unknown ones stay unknown only if
  // outside that set).
  std::optional<StepRecord> prev;
  Status stop;
  uint64_t tid = 0;
  auto s = t->for_each_step(0, t->step_count(), [&](const StepRecord& r) {
    if (r.info.kind != fmt::StepKind::Instruction && r.info.kind != fmt::StepKind::Syscall) {
      if (!drop_events) {
        stop = make_error(t->path(), "EID " + std::to_string(r.eid) + " is a " + std::string(fmt::step_kind_name(r.info.kind)) +
                                         " event; Tenet holds instructions only (--drop-events leaves events out, keeping "
                                         "their effects on the state)");
        return false;
      }
      ++res.events_dropped;
      // The event's effects go on the line after the step before it (before
      // the first line, the state line 0 is written from holds them). Its
      // reads without a value would take bytes from the wrong state: left out.
      if (prev) {
        prev->regs.insert(prev->regs.end(), r.regs.begin(), r.regs.end());
        for (const auto& m : r.mem) {
          if (!m.write && m.value.empty())
            ++res.reads_without_value;
          else
            prev->mem.push_back(m);
        }
      }
      return true;
    }
    line.clear();
    if (!prev) {
      if (auto st = c.seek(r.eid); !st) {
        stop = st;
        return false;
      }
      tid = r.info.tid;
      const ThreadState* th = c.state().find_thread(tid);
      std::vector<std::string> names{pc_name};
      for (uint16_t i = 0; th && i < arch.regs.size(); ++i) {
        if (i == arch.pc_index || !th->regs.valid(i)) continue;
        line += arch.regs[i].name + "=";
        hex_number(line, th->regs.bytes(i), arch.endian);
        line.push_back(',');
        names.push_back(arch.regs[i].name);
      }
      // A reader tells the architecture from line 0's names only.
      if (fmt::tenet::detect_arch(names) != arch.id) {
        stop = make_error(t->path(), "EID " + std::to_string(r.eid) + ": the registers known there do not name " +
                                         arch.name + " to a Tenet reader (its first line tells the architecture)");
        return false;
      }
    } else {
      for (const auto& g : prev->regs) {
        if (g.reg == arch.pc_index || g.reg >= arch.regs.size()) continue;
        line += arch.regs[g.reg].name + "=";
        hex_number(line, g.value, arch.endian);
        line.push_back(',');
      }
    }
    line += pc_name;
    line += '=';
    hex_u64(line, r.info.pc);
    if (prev) {
      // The state before step n-1 gives the bytes of reads the trace
      // records without a value; the cursor replays forward one step at a
      // time (incremental, no keyframe loads).
      const ProcessState* proc = c.state().find_process(prev->info.pid);
      for (const auto& m : prev->mem) {
        if (m.write) {
          line += ",mw=";
          hex_u64(line, m.addr);
          line.push_back(':');
          hex_bytes(line, m.value.data(), m.value.size());
          continue;
        }
        std::vector<uint8_t> bytes = m.value, valid;
        if (bytes.empty()) {
          if (!proc || m.size > (1u << 20)) {
            ++res.reads_without_value;
            continue;
          }
          bytes.resize(m.size), valid.resize(m.size);
          proc->memory.read(m.addr, bytes.data(), valid.data(), m.size);
          if (std::find(valid.begin(), valid.end(), 0) != valid.end()) {
            ++res.reads_without_value;
            continue;
          }
        }
        line += ",mr=";
        hex_u64(line, m.addr);
        line.push_back(':');
        hex_bytes(line, bytes.data(), bytes.size());
      }
      if (auto st = c.seek(r.eid); !st) {
        stop = st;
        return false;
      }
    }
    line.push_back('\n');
    out->get()->append(line);
    ++res.lines;
    prev = r;
    if (auto st = (*out)->status(); !st) {
      stop = st;
      return false;
    }
    return true;
  });
  if (!stop) return stop.error();
  if (!s) return s.error();
  if (!prev) return make_error(t->path(), "no instruction steps: all " + std::to_string(res.events_dropped) + " are events");
  if (auto st = (*out)->commit(); !st) return st.error();
  return res;
}

}  // namespace ttd::cli
