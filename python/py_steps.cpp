// Trace.steps(start, end): the steps of [start, end) as dicts, the same
// fields `ttd steps --json` prints (numbers as ints, values as bytes).
// Steps are decoded a batch at a time with the GIL released, so a loop
// that breaks early reads only the chunks it needed.
#include "py_steps.h"

#include <pybind11/stl.h>

#include <algorithm>
#include <deque>

namespace ttd::py {

namespace {

pyb::object attr_value(const fmt::AttrValue& v) {
  if (auto* u = std::get_if<uint64_t>(&v)) return pyb::int_(*u);
  if (auto* i = std::get_if<int64_t>(&v)) return pyb::int_(*i);
  if (auto* s = std::get_if<std::string>(&v)) return pyb::str(*s);
  return pyb::cast(std::get<std::vector<uint64_t>>(v));
}

// Register bytes as an int in the architecture's byte order (registers
// wider than 64 bits stay exact: Python ints are unbounded).
pyb::object register_int(const std::vector<uint8_t>& b, Endian endian) {
  pyb::bytes raw(reinterpret_cast<const char*>(b.data()), b.size());
  return pyb::int_(pyb::handle(reinterpret_cast<PyObject*>(&PyLong_Type))
                       .attr("from_bytes")(raw, endian == Endian::Little ? "little" : "big"));
}

pyb::dict step_dict(const StepRecord& r, const ArchDesc& arch) {
  pyb::dict d;
  d["eid"] = r.eid;
  d["thread"] = r.info.tid;
  d["pid"] = r.info.pid;
  d["kind"] = std::string(fmt::step_kind_name(r.info.kind));
  d["pc"] = r.info.pc;
  d["size"] = r.info.size;
  pyb::dict attrs;
  for (const auto& [k, v] : r.attrs) attrs[pyb::str(k)] = attr_value(v);
  d["attrs"] = attrs;
  pyb::dict regs;
  for (const auto& w : r.regs)
    if (w.reg < arch.regs.size()) regs[pyb::str(arch.regs[w.reg].name)] = register_int(w.value, arch.endian);
  d["regs"] = regs;
  pyb::list mem;
  for (const auto& m : r.mem) {
    pyb::dict e;
    e["op"] = m.write ? "w" : "r";
    e["addr"] = m.addr;
    e["size"] = m.size;
    // Accesses whose value the trace does not record have None, never zeros.
    e["value"] = m.value.empty() ? pyb::object(pyb::none())
                                 : pyb::object(pyb::bytes(reinterpret_cast<const char*>(m.value.data()), m.value.size()));
    mem.append(e);
  }
  d["mem"] = mem;
  return d;
}

struct StepIterator {
  std::shared_ptr<Trace> trace;
  uint64_t next_eid = 0;
  uint64_t end = 0;
  std::deque<StepRecord> batch;

  pyb::dict next() {
    if (batch.empty()) fill();
    if (batch.empty()) throw pyb::stop_iteration();
    pyb::dict d = step_dict(batch.front(), trace->arch());
    batch.pop_front();
    return d;
  }

  // One batch of at least a chunk: for_each_step decodes from the start of
  // the chunk holding next_eid, so smaller batches would decode it again.
  void fill() {
    if (next_eid >= end) return;
    uint64_t n = std::max<uint64_t>(trace->chunk_steps(), 1024);
    uint64_t stop = end - next_eid > n ? next_eid + n : end;
    Status s;
    {
      pyb::gil_scoped_release nogil;
      s = trace->for_each_step(next_eid, stop, [&](const StepRecord& r) {
        batch.push_back(r);
        return true;
      });
    }
    check(s);
    next_eid = stop;
  }
};

StepIterator make_steps(std::shared_ptr<Trace> t, uint64_t start, std::optional<uint64_t> end) {
  uint64_t count = t->step_count();
  uint64_t stop = std::min(end.value_or(count), count);
  if (start > count)
    raise(make_error("start", "EID " + std::to_string(start) + " is past the end (" + std::to_string(count) + " steps)"));
  if (end && *end < start)
    raise(make_error("end", "EID " + std::to_string(*end) + " is before start " + std::to_string(start)));
  StepIterator it;
  it.trace = std::move(t);
  it.next_eid = start;
  it.end = stop;
  return it;
}

}  // namespace

void bind_steps(pyb::module_& m, TraceClass& trace) {
  pyb::class_<StepIterator>(m, "StepIterator", "Iterator over the steps of a trace (Trace.steps).")
      .def("__iter__", [](StepIterator& s) -> StepIterator& { return s; })
      .def("__next__", &StepIterator::next);
  trace.def("steps", &make_steps, pyb::arg("start") = 0, pyb::arg("end") = pyb::none(),
            "The steps of [start, end) (end: the end of the trace) in order, each a dict: eid, thread, pid,\n"
            "kind, pc, size, attrs (format details), regs (name -> int written), mem (list of op 'r'/'w', addr,\n"
            "size, value bytes or None). The fields of `ttd steps --json`. Errors raise ttd.Error.");
}

}  // namespace ttd::py
