// Fidelity of the whole pipeline on real executions: each example is run
// under the recorder, the trace is indexed, and at every EID
//  - the state reached by keyframe seek (random order) has the same digest
//    as linear replay (sequential seeks), and
//  - every register and stack byte the engine reconstructs equals what the
//    emulator had live before that instruction ran.
#include <doctest/doctest.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <random>

#include "engine/cursor.h"
#include "tools/recorder/recorder.h"

using namespace ttd;
namespace fs = std::filesystem;

namespace {

struct LiveStep {
  RegisterFile regs;
  uint64_t sp = 0;
  std::vector<uint8_t> stack;  // 32 bytes at sp, empty if unmapped
};

void check_example(const std::string& arch_dir, const std::string& name, std::vector<std::string> args = {}) {
  std::string program = std::string(TTD_EXAMPLES_DIR) + "/" + arch_dir + "/" + name;
  if (!fs::exists(program)) {
    MESSAGE("skipping " << program << " (not built)");
    return;
  }
  std::string out = (fs::temp_directory_path() / ("ttd-fidelity-" + std::to_string(::getpid()) + "-" + arch_dir + "-" + name + ".ucir")).string();
  std::vector<LiveStep> live;
  rec::RecordOptions ro;
  ro.output = out;
  ro.argv = {program};
  for (auto& a : args) ro.argv.push_back(a);
  ro.capture_output = true;
  ro.stdin_data = "";
  ro.on_step = [&](uint64_t eid, const rec::LiveState& s) {
    REQUIRE(eid == live.size());
    LiveStep l{s.registers()};
    l.sp = *s.registers().get_u64(s.arch().sp_index);
    l.stack.resize(32);
    if (!s.read_memory(l.sp, l.stack)) l.stack.clear();
    live.push_back(std::move(l));
  };
  auto summary = rec::record(ro);
  REQUIRE_MESSAGE(summary.ok(), (summary.ok() ? "" : summary.error().to_string()));
  CHECK(summary->exited);
  REQUIRE(summary->steps == live.size());

  OpenOptions oo;
  oo.keyframe_interval = 512;
  oo.index_path = out + ".ttdidx";
  auto trace = Trace::open(out, oo);
  REQUIRE_MESSAGE(trace.ok(), (trace.ok() ? "" : trace.error().to_string()));
  REQUIRE((*trace)->step_count() == live.size());
  const ArchDesc& arch = (*trace)->arch();

  Cursor linear(*trace);
  std::vector<uint64_t> digests(live.size() + 1);
  uint64_t reg_checks = 0, mem_checks = 0, reg_mismatch = 0, mem_mismatch = 0;
  for (uint64_t e = 0; e <= live.size(); ++e) {
    REQUIRE(linear.seek(e).ok());
    digests[e] = linear.state().digest();
    if (e == live.size()) break;
    const ThreadState* th = linear.state().find_thread(linear.current_tid());
    REQUIRE(th);
    const LiveStep& l = live[e];
    for (uint16_t r = 0; r < arch.regs.size(); ++r) {
      if (!th->regs.valid(r) || !l.regs.valid(r)) continue;
      ++reg_checks;
      auto a = th->regs.bytes(r), b = l.regs.bytes(r);
      if (!std::equal(a.begin(), a.end(), b.begin())) {
        if (++reg_mismatch <= 5) FAIL_CHECK("EID " << e << ": " << arch.regs[r].name << " differs from the emulator");
      }
    }
    CHECK_MESSAGE(th->regs.valid(arch.pc_index), "pc unknown at EID " << e);
    CHECK_MESSAGE(th->regs.valid(arch.sp_index), "sp unknown at EID " << e);
    if (!l.stack.empty()) {
      const ProcessState* p = linear.state().find_process(th->pid);
      REQUIRE(p);
      uint8_t got[32], valid[32];
      p->memory.read(l.sp, got, valid, 32);
      for (int i = 0; i < 32; ++i) {
        if (!valid[i]) continue;
        ++mem_checks;
        if (got[i] != l.stack[i] && ++mem_mismatch <= 5)
          FAIL_CHECK("EID " << e << ": stack byte sp+" << i << " differs from the emulator");
      }
    }
  }
  CHECK(reg_mismatch == 0);
  CHECK(mem_mismatch == 0);
  CHECK(reg_checks > live.size() * 16);  // the general registers really were compared
  CHECK(mem_checks > 0);

  std::vector<uint64_t> order(live.size() + 1);
  for (uint64_t i = 0; i < order.size(); ++i) order[i] = i;
  std::shuffle(order.begin(), order.end(), std::mt19937_64(1));
  Cursor random(*trace);
  uint64_t digest_mismatch = 0;
  for (uint64_t e : order) {
    REQUIRE(random.seek(e).ok());
    if (random.state().digest() != digests[e] && ++digest_mismatch <= 5)
      FAIL_CHECK("EID " << e << ": keyframe seek differs from linear replay");
  }
  CHECK(digest_mismatch == 0);
  MESSAGE(arch_dir << "/" << name << ": " << live.size() << " steps, " << reg_checks << " register and " << mem_checks
                   << " stack-byte comparisons with the live emulator");
  fs::remove(out);
  fs::remove(out + ".ttdidx");
}

}  // namespace

TEST_CASE("x86-64 examples: reconstruction equals the live emulator and keyframe seek equals linear replay") {
  check_example("x86_64", "linked_list");
  check_example("x86_64", "overrun");
  check_example("x86_64", "recursion");
}

TEST_CASE("aarch64 examples: reconstruction equals the live emulator and keyframe seek equals linear replay") {
  check_example("aarch64", "linked_list");
  check_example("aarch64", "recursion");
}
