#include "tools/ttd/convert_verify.h"

#include <map>

#include "engine/cursor.h"
#include "formats/ucir/uc1_registers.h"
#include "tools/ttd/trace_options.h"  // hex_u64

namespace ttd::cli {

namespace {

bool byte_valid(const Page& p, uint64_t i) { return (p.valid[i / 64] >> (i % 64)) & 1u; }

// "" when equal, else what differs. out_tid maps a source tid to the
// output's (UCIR numbers threads 1, 2, ... in the order they are met).
std::string compare_states(const MachineState& a, const MachineState& b, const std::vector<bool>& encodable,
                           const std::map<uint64_t, uint64_t>& out_tid, const UnknownRanges& made_unknown,
                           ConvertCheck& out) {
  const ArchDesc& arch = a.arch();
  if (a.threads().size() != b.threads().size())
    return std::to_string(a.threads().size()) + " threads in the source, " + std::to_string(b.threads().size()) + " in the output";
  for (const auto& [tid, ta] : a.threads()) {
    auto m = out_tid.find(tid);
    const ThreadState* tb = m == out_tid.end() ? nullptr : b.find_thread(m->second);
    if (!tb)
      return "source thread " + std::to_string(tid) + " has no counterpart in the output" +
             (m == out_tid.end() ? std::string(" (the writer never numbered it)")
                                 : " (UCIR thread " + std::to_string(m->second) + " is not alive there)");
    ++out.threads_compared;
    const RegisterFile &ra = ta.regs, &rb = tb->regs;
    const std::string who = a.threads().size() > 1 ? " of thread " + std::to_string(tid) : "";
    for (uint16_t r = 0; r < arch.regs.size(); ++r) {
      if (r == arch.pc_index || !encodable[r]) continue;
      // UCIR cannot say "unknown": its registers start at zero. A register
      // the source does not know may be known in the output; one it knows
      // must be known and equal.
      if (!ra.valid(r) && rb.valid(r)) {
        ++out.registers_only_in_output;
        continue;
      }
      if (ra.valid(r) != rb.valid(r)) return "register " + arch.regs[r].name + who + " is " + (ra.valid(r) ? "known" : "unknown") +
                                             " in the source, " + (rb.valid(r) ? "known" : "unknown") + " in the output";
      if (ra.valid(r) && !std::equal(ra.bytes(r).begin(), ra.bytes(r).end(), rb.bytes(r).begin(), rb.bytes(r).end()))
        return "register " + arch.regs[r].name + who + " differs";
    }
  }
  if (a.processes().size() != b.processes().size()) return "the number of processes differs";
  for (auto pa = a.processes().begin(), pb = b.processes().begin(); pa != a.processes().end(); ++pa, ++pb) {
    if (!(pa->second.regions == pb->second.regions)) return "the mappings differ";
    const auto& pages_a = pa->second.memory.pages();
    for (const auto& [no, page] : pb->second.memory.pages()) {
      auto it = pages_a.find(no);
      for (uint64_t i = 0; i < kPageSize; ++i) {
        if (!byte_valid(*page, i)) continue;
        ++out.bytes_compared;
        const bool known_in_source = it != pages_a.end() && byte_valid(*it->second, i);
        if (!known_in_source && made_unknown.contains((no << kPageShift) + i)) {
          ++out.bytes_stale_in_output;
          continue;
        }
        // UCIR's mappings are zero-filled: a mapped byte the source never
        // knew reads as zero from the output.
        if (!known_in_source && page->data[i] == 0 && pa->second.regions.find((no << kPageShift) + i)) {
          ++out.bytes_zero_in_output;
          continue;
        }
        if (!known_in_source || it->second->data[i] != page->data[i])
          return "memory at " + hex_u64((no << kPageShift) + i) + " is " +
                 (it == pages_a.end() || !byte_valid(*it->second, i) ? std::string("unknown in the source") : "different");
      }
    }
    for (const auto& [no, page] : pages_a) {
      auto it = pb->second.memory.pages().find(no);
      for (uint64_t i = 0; i < kPageSize; ++i)
        if (byte_valid(*page, i) && (it == pb->second.memory.pages().end() || !byte_valid(*it->second, i)))
          ++out.bytes_only_in_source;
    }
  }
  return "";
}

}  // namespace

Result<ConvertCheck> verify_converted(std::shared_ptr<const Trace> src, const std::string& out_path, uint32_t samples,
                                      const std::vector<uint64_t>& source_tids, const ConvertedEids& eids,
                                      const UnknownRanges& made_unknown) {
  auto out = Trace::open(out_path);
  if (!out) return make_error(out_path, "reading the output back failed: " + out.error().to_string());
  const uint64_t n = eids.output_steps;
  if ((*out)->step_count() != n)
    return make_error(out_path, "read back with " + std::to_string((*out)->step_count()) + " steps, the writer wrote " +
                                    std::to_string(n));
  std::vector<bool> encodable(src->arch().regs.size());
  fmt::ucir::Uc1RegisterMap map(src->arch());
  for (uint16_t r = 0; r < encodable.size(); ++r) encodable[r] = map.number_of(r).has_value();
  std::map<uint64_t, uint64_t> out_tid;
  for (size_t i = 0; i < source_tids.size(); ++i) out_tid.emplace(source_tids[i], i + 1);
  Cursor ca(src), cb(*out);
  ConvertCheck res;
  const uint64_t stride = std::max<uint64_t>(1, n / std::max<uint32_t>(samples, 1));
  for (uint64_t eid = 0;; eid = std::min(eid + stride, n)) {
    const uint64_t src_eid = eids.source_of(eid);
    if (auto s = ca.seek(src_eid); !s) return s.error();
    if (auto s = cb.seek(eid); !s) return s.error();
    if (src_eid != eid) ++res.eids_mapped;
    auto sa = ca.current_step(), sb = cb.current_step();
    if (sa.has_value() != sb.has_value() || (sa && sa->pc != sb->pc))
      return make_error(out_path, "EID " + std::to_string(eid) + ": the pc differs from the source's (" +
                                      (sa ? hex_u64(sa->pc) : "end") + " vs " + (sb ? hex_u64(sb->pc) : "end") + ")");
    // The step's thread: the output's must be the source's, renumbered.
    if (sa && sb) {
      auto m = out_tid.find(sa->tid);
      if (m == out_tid.end() || m->second != sb->tid)
        return make_error(out_path, "EID " + std::to_string(eid) + ": the step is thread " + std::to_string(sa->tid) +
                                        "'s in the source and UCIR thread " + std::to_string(sb->tid) +
                                        "'s in the output, expected " +
                                        (m == out_tid.end() ? std::string("none") : std::to_string(m->second)));
      ++res.step_threads_compared;
    }
    std::string why = compare_states(ca.state(), cb.state(), encodable, out_tid, made_unknown, res);
    if (!why.empty())
      return make_error(out_path, "EID " + std::to_string(eid) + (src_eid != eid ? " (source EID " + std::to_string(src_eid) + ")" : "") +
                                      ": " + why + " (read back and compared with " + src->path() + ")");
    ++res.eids;
    if (ca.state().digest() == cb.state().digest()) ++res.digests_equal;
    if (eid == n) break;
  }
  return res;
}

}  // namespace ttd::cli
