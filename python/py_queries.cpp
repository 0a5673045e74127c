// The history queries as methods of ttd.Trace. History queries return
// iterators that fetch hits in batches (each batch a bounded scan over
// the index), so `for hit in trace.memory_accesses(...)` can stop early.
#include <pybind11/stl.h>

#include "engine/query/calls.h"
#include "engine/query/executions.h"
#include "engine/query/memory_history.h"
#include "engine/query/register_history.h"
#include "engine/query/value_search.h"
#include "py_hits.h"

namespace ttd::py {

namespace {

using OptU64 = std::optional<uint64_t>;

// Python iterator over a HitIterator; Convert turns a C++ hit into what
// Python receives.
template <class It, class Convert>
struct PyHits {
  It it;
  Convert convert;
  pyb::object next() {
    auto h = [&] {
      pyb::gil_scoped_release nogil;
      return it.next();
    }();
    if (!h) raise(h.error());
    if (!*h) throw pyb::stop_iteration();
    return convert(std::move(**h));
  }
};

template <class It, class Convert>
void bind_iterator(pyb::module_& m, const char* name) {
  using P = PyHits<It, Convert>;
  pyb::class_<P>(m, name)
      .def("__iter__", [](P& p) -> P& { return p; })
      .def("__next__", &P::next);
}

query::QueryStart window(const Trace& t, OptU64 start, OptU64 end, OptU64 at, bool backward,
                         const std::optional<std::string>& resume) {
  std::optional<query::ResumeToken> token;
  if (resume) token = unwrap(query::parse_resume_token(*resume));
  auto q = query::resolve_window(t, start, end, at, backward, token);
  if (!q) {
    Error e = q.error();
    if (e.where == "from") e.where = "start";  // the Python argument names
    if (e.where == "to") e.where = "end";
    raise(e);
  }
  return *q;
}

std::vector<uint8_t> pattern_of(const pyb::object& p) {
  if (pyb::isinstance<pyb::str>(p)) return unwrap(query::parse_hex_bytes(p.cast<std::string>()));
  std::string raw = p.cast<pyb::bytes>();
  if (raw.empty()) raise(make_error("pattern", "empty byte pattern"));
  return std::vector<uint8_t>(raw.begin(), raw.end());
}

std::optional<query::AddressRange> within_of(const std::optional<std::pair<uint64_t, uint64_t>>& w) {
  if (!w) return std::nullopt;
  return unwrap(query::make_range(w->first, w->second, "within"));
}

struct Identity {
  template <class T>
  pyb::object operator()(T&& v) const {
    return pyb::cast(std::forward<T>(v));
  }
};
// Memory accesses, executions and calls get `sym` ("push+0x1b") and `src`
// ("/src/list.c:42") attributes (None when unknown) from the trace's
// symbolizer: of the pc, or of a call's function entry.
struct Symbolized {
  std::shared_ptr<const Trace> t;
  static std::optional<uint64_t> pc_of(const query::MemoryAccess& a) { return a.pc; }
  static std::optional<uint64_t> pc_of(const query::Execution& e) { return e.pc; }
  static std::optional<uint64_t> pc_of(const query::Call& c) {
    return c.symbol.empty() ? c.function : std::nullopt;
  }
  template <class T>
  pyb::object operator()(T&& v) const {
    std::optional<uint64_t> pc = pc_of(v);
    pyb::object o = pyb::cast(std::forward<T>(v));
    set_symbol_attrs(o, pc && t ? t->symbolizer().at(*pc) : std::nullopt);
    return o;
  }
};

struct ToRegisterChange {
  std::shared_ptr<const Trace> t;
  pyb::object operator()(query::RegisterWrite&& w) const { return pyb::cast(RegisterChange{std::move(w), t}); }
};

// Calls come from a walker rather than a batch iterator; same protocol.
struct CallIter {
  std::unique_ptr<query::CallWalker> walker;
  std::shared_ptr<const Trace> trace;  // for the incomplete note
  Result<std::optional<query::Call>> next() { return walker->next(); }
};

using MemoryHits = PyHits<query::MemoryHistory, Symbolized>;
using RegisterHits = PyHits<query::RegisterChanges, ToRegisterChange>;
using ExecutionHits = PyHits<query::Executions, Symbolized>;
using CallHits = PyHits<CallIter, Symbolized>;

}  // namespace

void bind_queries(pyb::module_& m, TraceClass& trace) {
  bind_iterator<query::MemoryHistory, Symbolized>(m, "MemoryAccessIterator");
  bind_iterator<query::RegisterChanges, ToRegisterChange>(m, "RegisterWriteIterator");
  bind_iterator<query::Executions, Symbolized>(m, "ExecutionIterator");
  pyb::class_<CallHits>(m, "CallIterator")
      .def("__iter__", [](CallHits& p) -> CallHits& { return p; })
      .def("__next__",
           [](CallHits& p) {
             try {
               return p.next();
             } catch (pyb::stop_iteration&) {
               // The walk is over: a list that may be short says so.
               if (auto why = query::incomplete_reason(*p.it.trace, p.it.walker->stats()))
                 if (PyErr_WarnEx(PyExc_RuntimeWarning, ("ttd calls incomplete: " + *why).c_str(), 1) != 0)
                   throw pyb::error_already_set();
               throw;
             }
           })
      .def_property_readonly("stats", [](const CallHits& p) {
        const query::CallStats& s = p.it.walker->stats();
        pyb::dict d;
        d["calls"] = s.calls;
        d["orphan_returns"] = s.orphan_returns;
        d["chunks_decoded"] = s.chunks_decoded;
        d["chunks_skipped"] = s.chunks_skipped;
        d["pcs_classified"] = s.pcs_classified;
        d["pcs_unknown"] = s.pcs_unknown;
        d["pcs_from_program"] = s.pcs_from_program;
        d["unclassified_steps"] = s.unclassified_steps;
        auto why = query::incomplete_reason(*p.it.trace, s);
        d["incomplete"] = why ? pyb::object(pyb::str(*why)) : pyb::object(pyb::none());
        return d;
      });

  trace.def(
      "memory_accesses",
      [](std::shared_ptr<Trace> t, uint64_t addr, uint64_t length, const std::string& kind, OptU64 start, OptU64 end,
         OptU64 at, bool backward, OptU64 thread, const std::optional<std::string>& resume) {
        query::MemoryQuery q;
        q.range = unwrap(query::make_range(addr, length, "range"));
        q.kind = unwrap(query::parse_access_filter(kind));
        q.start = window(*t, start, end, at, backward, resume);
        q.tid = thread;
        q.cancel = python_cancel();
        return MemoryHits{query::memory_history(t, std::move(q)), Symbolized{t}};
      },
      pyb::arg("addr"), pyb::arg("length"), pyb::arg("kind") = "rw", pyb::kw_only(), pyb::arg("start") = pyb::none(),
      pyb::arg("end") = pyb::none(), pyb::arg("at") = pyb::none(), pyb::arg("backward") = false,
      pyb::arg("thread") = pyb::none(), pyb::arg("resume") = pyb::none(),
      "Reads/writes of [addr, addr+length) ('r', 'w', 'rw') in steps [start, end), from `at` forwards or backwards.");

  trace.def(
      "register_writes",
      [](std::shared_ptr<Trace> t, const std::string& reg, OptU64 start, OptU64 end, OptU64 at, bool backward,
         OptU64 thread, const std::optional<std::string>& resume) {
        query::RegisterQuery q;
        q.reg = unwrap(query::resolve_register(*t, reg));
        q.start = window(*t, start, end, at, backward, resume);
        q.tid = thread;
        q.cancel = python_cancel();
        return RegisterHits{query::register_changes(t, std::move(q)), ToRegisterChange{t}};
      },
      pyb::arg("reg"), pyb::kw_only(), pyb::arg("start") = pyb::none(), pyb::arg("end") = pyb::none(),
      pyb::arg("at") = pyb::none(), pyb::arg("backward") = false, pyb::arg("thread") = pyb::none(),
      pyb::arg("resume") = pyb::none(), "Steps that wrote a register.");

  auto neighbour = [](bool previous) {
    return [previous](std::shared_ptr<Trace> t, const std::string& reg, uint64_t at, OptU64 thread) -> pyb::object {
      uint16_t r = unwrap(query::resolve_register(*t, reg));
      auto w = unwrap(previous ? query::previous_register_write(*t, r, at, thread) : query::next_register_write(*t, r, at, thread));
      if (!w) return pyb::none();
      return pyb::cast(RegisterChange{std::move(*w), t});
    };
  };
  trace.def("previous_register_write", neighbour(true), pyb::arg("reg"), pyb::arg("at"), pyb::arg("thread") = pyb::none(),
            "The last write of reg before position `at` (None if there is none).");
  trace.def("next_register_write", neighbour(false), pyb::arg("reg"), pyb::arg("at"), pyb::arg("thread") = pyb::none(),
            "The first write of reg at or after position `at` (None if there is none).");

  trace.def(
      "executions",
      [](std::shared_ptr<Trace> t, uint64_t pc, uint64_t length, OptU64 start, OptU64 end, OptU64 at, bool backward,
         uint64_t resolution, OptU64 thread, const std::optional<std::string>& resume) {
        query::ExecutionQuery q;
        q.pc_lo = pc;
        q.pc_hi = pc + length;
        if (length == 0) raise(make_error("length", "empty pc range (length 0)"));
        if (q.pc_hi < pc && q.pc_hi != 0) raise(make_error("length", "pc range overflows the address space"));
        q.start = window(*t, start, end, at, backward, resume);
        q.resolution = resolution;
        q.tid = thread;
        q.cancel = python_cancel();
        return ExecutionHits{query::executions(t, std::move(q)), Symbolized{t}};
      },
      pyb::arg("pc"), pyb::arg("length") = 1, pyb::kw_only(), pyb::arg("start") = pyb::none(), pyb::arg("end") = pyb::none(),
      pyb::arg("at") = pyb::none(), pyb::arg("backward") = false, pyb::arg("resolution") = 0, pyb::arg("thread") = pyb::none(),
      pyb::arg("resume") = pyb::none(), "Steps whose pc is in [pc, pc+length); resolution N: at most one per N EIDs.");

  trace.def(
      "calls",
      [](std::shared_ptr<Trace> t, OptU64 start, OptU64 end, OptU64 function, OptU64 thread,
         std::optional<uint32_t> max_depth, const std::string& order) {
        query::CallQuery q;
        q.window = window(*t, start, end, std::nullopt, false, std::nullopt).window;
        q.function = function;
        q.tid = thread;
        q.max_depth = max_depth;
        if (order == "exit")
          q.order = query::CallOrder::Exit;
        else if (order != "entry")
          raise(make_error("order", "expected 'entry' or 'exit', got '" + order + "'"));
        q.cancel = python_cancel();
        return CallHits{CallIter{unwrap(query::CallWalker::create(t, std::move(q))), t}, Symbolized{t}};
      },
      pyb::kw_only(), pyb::arg("start") = pyb::none(), pyb::arg("end") = pyb::none(), pyb::arg("function") = pyb::none(),
      pyb::arg("thread") = pyb::none(), pyb::arg("max_depth") = pyb::none(), pyb::arg("order") = "entry",
      "Calls entered in [start, end), in entry order (a call tree) or exit order.");

  trace.def(
      "search_memory",
      [](std::shared_ptr<Trace> t, const pyb::object& pattern, uint64_t at,
         const std::optional<std::pair<uint64_t, uint64_t>>& within, OptU64 pid, size_t limit) {
        query::SpaceSearch q{pattern_of(pattern), at, within_of(within), pid, limit};
        auto r = [&] {
          pyb::gil_scoped_release nogil;
          return query::search_memory(t, q);
        }();
        return unwrap(std::move(r));
      },
      pyb::arg("pattern"), pyb::arg("at"), pyb::kw_only(), pyb::arg("within") = pyb::none(), pyb::arg("pid") = pyb::none(),
      pyb::arg("limit") = 0, "Where a byte pattern (bytes, or a hex string) is in memory at EID `at`.");

  trace.def(
      "first_appearance",
      [](std::shared_ptr<Trace> t, const pyb::object& pattern, OptU64 start, OptU64 end,
         const std::optional<std::pair<uint64_t, uint64_t>>& within, OptU64 pid) -> pyb::object {
        query::TimeSearch q;
        q.pattern = pattern_of(pattern);
        q.window = {start.value_or(0), end.value_or(t->step_count())};
        q.within = within_of(within);
        q.pid = pid;
        q.cancel = python_cancel();
        auto r = [&] {
          pyb::gil_scoped_release nogil;
          return query::first_appearance(t, q);
        }();
        auto a = unwrap(std::move(r));
        return a ? pyb::cast(*a) : pyb::none();
      },
      pyb::arg("pattern"), pyb::kw_only(), pyb::arg("start") = pyb::none(), pyb::arg("end") = pyb::none(),
      pyb::arg("within") = pyb::none(), pyb::arg("pid") = pyb::none(),
      "The first position in [start, end] whose memory holds the pattern (None if never).");
}

}  // namespace ttd::py
