#include "crosscheck_cases.h"

#include "motion_suite.h"

namespace ttd::test {

namespace {

using json = nlohmann::json;

constexpr uint64_t kTid = 100;   // the suite's one thread
constexpr uint64_t kBase = 32;   // the cases start in the third iteration of main's loop
constexpr uint64_t kF = kMotionCode + 0x100;

// Offsets of one iteration (16 steps, motion_program.h): 0 m0, 1 m1 call f,
// 2-4 f, 5 m2, 6 m3 call g, 7 g0, 8 g1 call f, 9-11 f, 12 g2, 13 g3 ret,
// 14 m4 (pair store), 15 m5 jump.

struct Move {
  std::string name;
  Direction dir;
};

Move parse(const std::string& m) {
  bool back = m[0] == 'r';
  return {back ? m.substr(1) : m, back ? Direction::Backward : Direction::Forward};
}

WatchKind watch_kind(const std::string& k) {
  return k == "write" ? WatchKind::Write : k == "read" ? WatchKind::Read : WatchKind::Access;
}

// The latest (backward) or first (forward) execution of pc strictly
// before / after e: the step at the start always runs.
std::optional<uint64_t> breakpoint_oracle(const Suite& s, uint64_t e, uint64_t pc, Direction dir) {
  if (dir == Direction::Forward) {
    for (uint64_t k = e + 1; k < s.count(); ++k)
      if (s.prog.steps[k].pc == pc) return k;
  } else {
    for (uint64_t k = e; k-- > 0;)
      if (s.prog.steps[k].pc == pc) return k;
  }
  return std::nullopt;
}

// The access a run from e stops at: the suite's rule (an access whose stop
// position is the start does not count).
std::optional<uint64_t> watch_oracle(const Suite& s, uint64_t e, const Watchpoint& w, Direction dir) {
  if (dir == Direction::Forward) return s.watch_on_the_way(e, s.count(), dir, w);
  return s.watch_on_the_way(e, 0, dir, w);
}

json oracle_move(const Suite& s, uint64_t& at, const std::string& move, const json& setup) {
  Move m = parse(move);
  bool fwd = m.dir == Direction::Forward;
  json out = {{"move", move}};
  std::optional<uint64_t> to;
  std::string kind;
  if (m.name == "continue") {
    if (setup.contains("break")) {
      to = breakpoint_oracle(s, at, setup["break"].get<uint64_t>(), m.dir);
      kind = "breakpoint";
    } else {
      const json& w = setup["watch"];
      Watchpoint wp{w["addr"].get<uint64_t>(), w["len"].get<uint64_t>(), watch_kind(w["kind"].get<std::string>())};
      if (auto k = watch_oracle(s, at, wp, m.dir)) {
        to = s.stop_of(*k, m.dir);
        out["hit"] = *k;
      }
      kind = "watchpoint";
    }
  } else {
    StepMotion sm = m.name == "stepi" ? StepMotion::In : m.name == "nexti" ? StepMotion::Over : StepMotion::Out;
    to = s.oracle(at, kTid, sm, m.dir);
    kind = "step";
  }
  at = to.value_or(fwd ? s.count() : 0);
  out["eid"] = at;
  out["kind"] = to ? kind : fwd ? "end" : "begin";
  return out;
}

json make_case(const Suite& s, const std::string& name, uint64_t start, json setup, const std::vector<std::string>& moves) {
  json c = {{"name", name}, {"start", start}, {"setup", setup}, {"moves", json::array()}};
  uint64_t at = start;
  for (const auto& m : moves) c["moves"].push_back(oracle_move(s, at, m, setup));
  return c;
}

json watch_setup(const Suite& s, const std::string& kind, uint64_t addr, uint64_t len) {
  Watchpoint w{addr, len, watch_kind(kind)};
  json acc = json::array();
  for (uint64_t k = 0; k < s.count(); ++k)
    if (s.hits(k, w))
      acc.push_back({{"step", k}, {"changed", s.prog.data_before(k, addr, len) != s.prog.data_before(k + 1, addr, len)}});
  return {{"watch", {{"kind", kind}, {"addr", addr}, {"len", len}}}, {"accesses", acc}};
}

// The first step at or after kBase whose accesses satisfy pred.
template <class Pred>
const MotionStep* first_step(const Suite& s, Pred pred) {
  for (uint64_t k = kBase; k < s.count(); ++k)
    if (pred(s.prog.steps[k])) return &s.prog.steps[k];
  return nullptr;
}

}  // namespace

Result<json> crosscheck_cases(const Suite& s) {
  const uint64_t b = kBase;
  json cases = json::array();
  cases.push_back(make_case(s, "stepi both ways across a call", b, json::object(),
                            {"stepi", "stepi", "stepi", "rstepi", "rstepi", "rstepi", "rstepi"}));
  cases.push_back(make_case(s, "nexti over a call to a leaf", b + 1, json::object(), {"nexti", "rnexti"}));
  cases.push_back(make_case(s, "nexti over a call that calls", b + 6, json::object(), {"nexti", "rnexti"}));
  cases.push_back(make_case(s, "finish from a leaf called by main", b + 3, json::object(), {"finish"}));
  cases.push_back(make_case(s, "reverse-finish from a leaf called by main", b + 3, json::object(), {"rfinish"}));
  cases.push_back(make_case(s, "finish from a leaf called by g", b + 10, json::object(), {"finish"}));
  cases.push_back(make_case(s, "reverse-finish from a leaf called by g", b + 10, json::object(), {"rfinish"}));
  cases.push_back(make_case(s, "finish from g", b + 7, json::object(), {"finish"}));
  cases.push_back(make_case(s, "reverse-finish from g after its call", b + 12, json::object(), {"rfinish"}));
  cases.push_back(make_case(s, "continue both ways to a breakpoint at f", b, json{{"break", kF}},
                            {"continue", "continue", "continue", "rcontinue", "rcontinue", "rcontinue", "rcontinue"}));
  const std::vector<std::string> both = {"continue", "continue", "continue", "rcontinue", "rcontinue", "rcontinue"};
  // A write that covers part of the range (2 of the 4 watched bytes); a
  // range across the seam of a pair store (two writes of one step); a
  // read; the end of a 16-byte write.
  const MotionStep* part = first_step(s, [](const MotionStep& st) {
    return st.accesses.size() == 1 && st.accesses[0].write && st.accesses[0].size >= 2 &&
           st.accesses[0].addr >= kMotionData + 2;
  });
  const MotionStep* pair = first_step(s, [](const MotionStep& st) { return st.accesses.size() == 2; });
  const MotionStep* load = first_step(s, [](const MotionStep& st) {
    return st.accesses.size() == 1 && !st.accesses[0].write;
  });
  const MotionStep* wide = first_step(s, [](const MotionStep& st) {
    return st.accesses.size() == 1 && st.accesses[0].size == 16;
  });
  if (!part || !pair || !load || !wide)
    return make_error("motion program", "the seed gave no step for one of the watch cases (partial write, pair "
                                        "store, read, 16-byte write) after EID " + std::to_string(b));
  cases.push_back(make_case(s, "write watch partly covered by a write", b,
                            watch_setup(s, "write", part->accesses[0].addr - 2, 4), both));
  cases.push_back(make_case(s, "write watch straddling two writes", b,
                            watch_setup(s, "write", pair->accesses[0].addr + 2, 4), both));
  cases.push_back(make_case(s, "read watch", b, watch_setup(s, "read", load->accesses[0].addr, 2), both));
  cases.push_back(make_case(s, "access watch across the end of a 16-byte write", b,
                            watch_setup(s, "access", wide->accesses[0].addr + 12, 8), both));
  return cases;
}

std::string replay_on_engine(std::shared_ptr<const Trace> trace, const json& cases) {
  Timeline tl(trace);
  for (const auto& c : cases) {
    if (!tl.seek(c["start"].get<uint64_t>())) return c["name"].get<std::string>() + ": seek failed";
    StopConditions cond;
    const json& setup = c["setup"];
    if (setup.contains("break")) cond.breakpoints = {setup["break"].get<uint64_t>()};
    if (setup.contains("watch")) {
      const json& w = setup["watch"];
      cond.watchpoints = {{w["addr"].get<uint64_t>(), w["len"].get<uint64_t>(), watch_kind(w["kind"].get<std::string>())}};
    }
    for (const auto& mv : c["moves"]) {
      Move m = parse(mv["move"].get<std::string>());
      Stop st;
      if (m.name == "continue") {
        st = tl.run(m.dir, cond);
      } else if (m.name == "stepi") {
        st = tl.step(m.dir);
      } else {
        StepByRequest req;
        req.motion = m.name == "nexti" ? StepMotion::Over : StepMotion::Out;
        req.direction = m.dir;
        req.unit = StepUnit::Instruction;
        auto got = tl.step_by(req, nullptr);
        if (!got) return c["name"].get<std::string>() + ": " + got.error().to_string();
        st = *got;
      }
      uint64_t want = mv["eid"].get<uint64_t>();
      if (st.eid != want)
        return c["name"].get<std::string>() + ": " + mv["move"].get<std::string>() + " stopped at EID " +
               std::to_string(st.eid) + ", the oracle says " + std::to_string(want);
    }
  }
  return "";
}

}  // namespace ttd::test
