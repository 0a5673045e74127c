// ttd.Cursor: a position in a trace with the machine state there, moves in
// both directions, breakpoints and watchpoints, registers and memory
// (unknown registers and bytes are None, never 0).
#include <pybind11/stl.h>

#include <algorithm>

#include "engine/motion/timeline.h"
#include "engine/query/memory_history.h"
#include "py_support.h"

namespace ttd::py {

namespace {

struct PyCursor {
  std::shared_ptr<Trace> trace;
  Timeline cursor;  // the engine's moves over a position
  StopConditions stops;

  explicit PyCursor(std::shared_ptr<Trace> t) : trace(t), cursor(t) {}

  const ThreadState* thread(std::optional<uint64_t> tid) const {
    uint64_t t = tid.value_or(cursor.current_tid());
    const ThreadState* th = cursor.state().find_thread(t);
    if (!th && tid) raise(make_error("thread", "no thread " + std::to_string(t) + " at EID " + std::to_string(cursor.eid())));
    return th;
  }
  const ProcessState* process(std::optional<uint64_t> pid) const {
    if (pid) {
      const ProcessState* p = cursor.state().find_process(*pid);
      if (!p) raise(make_error("pid", "no process " + std::to_string(*pid) + " at EID " + std::to_string(cursor.eid())));
      return p;
    }
    if (const ThreadState* th = thread(std::nullopt))
      if (const ProcessState* p = cursor.state().find_process(th->pid)) return p;
    const auto& ps = cursor.state().processes();
    return ps.empty() ? nullptr : &ps.begin()->second;
  }
};

const char* stop_kind_name(StopKind k) {
  switch (k) {
    case StopKind::Step: return "step";
    case StopKind::Breakpoint: return "breakpoint";
    case StopKind::Watchpoint: return "watchpoint";
    case StopKind::HistoryBegin: return "history-begin";
    case StopKind::HistoryEnd: return "history-end";
    case StopKind::Interrupted: return "interrupted";
  }
  return "?";
}

const char* watch_kind_name(WatchKind k) {
  return k == WatchKind::Write ? "write" : k == WatchKind::Read ? "read" : "access";
}

WatchKind parse_watch_kind(const std::string& s) {
  auto f = query::parse_access_filter(s);
  if (!f) raise(f.error());
  return *f == query::AccessFilter::Read ? WatchKind::Read : *f == query::AccessFilter::Write ? WatchKind::Write : WatchKind::Access;
}

void check_range(uint64_t addr, uint64_t length, const char* what) {
  if (auto r = query::make_range(addr, length, what); !r) raise(r.error());
}

pyb::object register_value(const RegisterFile& regs, uint16_t r) {
  if (!regs.valid(r)) return pyb::none();
  if (auto v = regs.get_u64(r); v && regs.bytes(r).size() <= 8) return pyb::int_(*v);
  // Python ints are arbitrary precision: wide registers become ints too.
  auto b = regs.bytes(r);
  pyb::bytes raw(reinterpret_cast<const char*>(b.data()), b.size());
  bool le = regs.arch().endian == Endian::Little;
  return pyb::module_::import("builtins").attr("int").attr("from_bytes")(raw, le ? "little" : "big");
}

uint16_t register_index(const Trace& t, const std::string& name) {
  auto r = t.arch().find(name);
  if (!r) raise(make_error("register", "no register '" + name + "' on " + t.arch().name));
  return *r;
}

Stop run(PyCursor& c, bool forward) {
  auto cancel = python_cancel();
  Stop s;
  {
    pyb::gil_scoped_release nogil;
    s = c.cursor.run(forward ? Direction::Forward : Direction::Backward, c.stops, cancel);
  }
  if (s.kind == StopKind::Interrupted && PyErr_Occurred()) throw pyb::error_already_set();
  return s;
}

}  // namespace

void bind_cursor(pyb::module_& m, TraceClass& trace) {
  pyb::class_<Stop>(m, "Stop", "Why and where a move stopped.")
      .def_property_readonly("kind", [](const Stop& s) { return stop_kind_name(s.kind); })
      .def_readonly("eid", &Stop::eid)
      .def_readonly("thread", &Stop::tid)
      .def_readonly("addr", &Stop::addr, "breakpoint pc, or the watched address that was hit")
      .def_property_readonly("watch", [](const Stop& s) -> pyb::object {
        if (s.kind != StopKind::Watchpoint) return pyb::none();
        return pyb::str(watch_kind_name(s.watch));
      })
      .def_property_readonly("hit_eid", [](const Stop& s) -> pyb::object {
        if (s.kind != StopKind::Watchpoint) return pyb::none();
        return pyb::int_(s.hit_eid);
      })
      .def("__repr__", [](const Stop& s) {
        return std::string("<ttd.Stop ") + stop_kind_name(s.kind) + " at EID " + std::to_string(s.eid) + ">";
      });

  pyb::class_<PyCursor>(m, "Cursor", "A position in a trace and the machine state before that step runs.")
      .def(pyb::init<std::shared_ptr<Trace>>(), pyb::arg("trace"))
      .def_property_readonly("trace", [](const PyCursor& c) { return c.trace; })
      .def_property_readonly("eid", [](const PyCursor& c) { return c.cursor.eid(); })
      .def_property_readonly("thread", [](const PyCursor& c) { return c.cursor.current_tid(); })
      .def_property_readonly("pc", [](const PyCursor& c) -> pyb::object {
        const ThreadState* th = c.thread(std::nullopt);
        return th ? register_value(th->regs, c.trace->arch().pc_index) : pyb::none();
      })
      .def_property_readonly("step", [](const PyCursor& c) -> pyb::object {
        auto s = c.cursor.current_step();
        if (!s) return pyb::none();
        pyb::dict d;
        d["thread"] = s->tid;
        d["pid"] = s->pid;
        d["pc"] = s->pc;
        d["size"] = s->size;
        d["kind"] = std::string(fmt::step_kind_name(s->kind));
        return d;
      }, "The step at this position (None at the end of the trace).")
      .def("seek", [](PyCursor& c, uint64_t eid) { check(c.cursor.seek(eid)); }, pyb::arg("eid"))
      .def("step_forward", [](PyCursor& c, std::optional<uint64_t> tid) { return c.cursor.step(Direction::Forward, tid); },
           pyb::arg("thread") = pyb::none())
      .def("step_backward", [](PyCursor& c, std::optional<uint64_t> tid) { return c.cursor.step(Direction::Backward, tid); },
           pyb::arg("thread") = pyb::none())
      .def("continue_forward", [](PyCursor& c) { return run(c, true); },
           "Runs to the next breakpoint or watchpoint hit, or the end of the trace.")
      .def("continue_backward", [](PyCursor& c) { return run(c, false); },
           "Runs back to the previous breakpoint or watchpoint hit, or the start of the trace.")
      .def("add_breakpoint", [](PyCursor& c, uint64_t pc) { c.stops.breakpoints.push_back(pc); }, pyb::arg("pc"))
      .def("remove_breakpoint",
           [](PyCursor& c, uint64_t pc) {
             auto& b = c.stops.breakpoints;
             b.erase(std::remove(b.begin(), b.end(), pc), b.end());
           },
           pyb::arg("pc"))
      .def("add_watchpoint",
           [](PyCursor& c, uint64_t addr, uint64_t length, const std::string& kind) {
             check_range(addr, length, "watchpoint");
             c.stops.watchpoints.push_back(Watchpoint{addr, length, parse_watch_kind(kind)});
           },
           pyb::arg("addr"), pyb::arg("length") = 1, pyb::arg("kind") = "w")
      .def("remove_watchpoint",
           [](PyCursor& c, uint64_t addr) {
             auto& w = c.stops.watchpoints;
             w.erase(std::remove_if(w.begin(), w.end(), [&](const Watchpoint& x) { return x.addr == addr; }), w.end());
           },
           pyb::arg("addr"))
      .def("clear_stops", [](PyCursor& c) { c.stops = StopConditions{}; })
      .def_property_readonly("breakpoints", [](const PyCursor& c) { return c.stops.breakpoints; })
      .def("register",
           [](const PyCursor& c, const std::string& name, std::optional<uint64_t> tid) -> pyb::object {
             uint16_t r = register_index(*c.trace, name);
             const ThreadState* th = c.thread(tid);
             return th ? register_value(th->regs, r) : pyb::none();
           },
           pyb::arg("name"), pyb::arg("thread") = pyb::none(), "A register's value, None when unknown.")
      .def("registers",
           [](const PyCursor& c, std::optional<uint64_t> tid) {
             pyb::dict d;
             const ThreadState* th = c.thread(tid);
             const ArchDesc& a = c.trace->arch();
             for (uint16_t r = 0; r < a.regs.size(); ++r) d[pyb::str(a.regs[r].name)] = th ? register_value(th->regs, r) : pyb::none();
             return d;
           },
           pyb::arg("thread") = pyb::none(), "All registers by name (None when unknown).")
      .def("memory",
           [](const PyCursor& c, uint64_t addr, uint64_t length, std::optional<uint64_t> pid) {
             check_range(addr, length, "memory");
             if (length > (64u << 20)) raise(make_error("memory", "at most 64 MiB at a time"));
             std::vector<uint8_t> bytes(length), valid(length, 0);
             if (const ProcessState* p = c.process(pid))
               if (Status st = p->memory.read_checked(addr, bytes.data(), valid.data(), length); !st) raise(st.error());
             pyb::list out(length);
             for (uint64_t i = 0; i < length; ++i) out[i] = valid[i] ? pyb::object(pyb::int_(bytes[i])) : pyb::none();
             return out;
           },
           pyb::arg("addr"), pyb::arg("length"), pyb::arg("pid") = pyb::none(),
           "Bytes at addr as a list of ints, None for each unknown byte.")
      .def("read_bytes",
           [](const PyCursor& c, uint64_t addr, uint64_t length, std::optional<uint64_t> pid) -> pyb::object {
             check_range(addr, length, "memory");
             if (length > (64u << 20)) raise(make_error("memory", "at most 64 MiB at a time"));
             std::string bytes(length, '\0');
             const ProcessState* p = c.process(pid);
             if (!p) return pyb::none();
             std::vector<uint8_t> valid(length, 0);
             if (Status st = p->memory.read_checked(addr, reinterpret_cast<uint8_t*>(bytes.data()), valid.data(), length); !st)
               raise(st.error());
             if (std::find(valid.begin(), valid.end(), 0) != valid.end()) return pyb::none();
             return pyb::bytes(bytes);
           },
           pyb::arg("addr"), pyb::arg("length"), pyb::arg("pid") = pyb::none(),
           "Bytes at addr, or None unless every one is known.")
      .def("__repr__", [](const PyCursor& c) { return "<ttd.Cursor at EID " + std::to_string(c.cursor.eid()) + ">"; });

  trace.def("cursor",
            [](std::shared_ptr<Trace> t, uint64_t at) {
              auto c = std::make_unique<PyCursor>(t);
              check(c->cursor.seek(at));
              return c;
            },
            pyb::arg("at") = 0, "A new cursor at EID `at`.");
}

}  // namespace ttd::py
