// The hit types queries yield: ttd.MemoryAccess, ttd.RegisterWrite,
// ttd.Execution, ttd.Call, ttd.Match, ttd.Appearance. Values the trace
// does not know are None. Each history hit has `next`, the token that
// resumes its query just after it.
#include <pybind11/stl.h>

#include "engine/query/calls.h"
#include "engine/query/executions.h"
#include "engine/query/memory_history.h"
#include "engine/query/query_json.h"
#include "engine/query/value_search.h"
#include "py_hits.h"

namespace ttd::py {

namespace {
pyb::object opt(const std::optional<uint64_t>& v) { return v ? pyb::object(pyb::int_(*v)) : pyb::none(); }
pyb::object opt_bytes(const std::optional<std::vector<uint8_t>>& v) {
  return v ? pyb::object(pyb::bytes(reinterpret_cast<const char*>(v->data()), v->size())) : pyb::none();
}
pyb::object text_or_none(const std::string& s) { return s.empty() ? pyb::none() : pyb::object(pyb::str(s)); }
}  // namespace

void set_symbol_attrs(pyb::object& o, const std::optional<PcSymbol>& s) {
  o.attr("sym") = s ? text_or_none(s->sym()) : pyb::none();
  o.attr("src") = s ? text_or_none(s->src()) : pyb::none();
}

pyb::object RegisterChange::value() const {
  if (!write.value) return pyb::none();
  if (auto v = query::register_value_u64(*trace, write)) return pyb::int_(*v);
  pyb::bytes raw(reinterpret_cast<const char*>(write.value->data()), write.value->size());
  bool le = trace->arch().endian == Endian::Little;
  return pyb::module_::import("builtins").attr("int").attr("from_bytes")(raw, le ? "little" : "big");
}

void bind_hits(pyb::module_& m) {
  using query::MemoryAccess;
  pyb::class_<MemoryAccess>(m, "MemoryAccess", "A read or write overlapping the queried range.", pyb::dynamic_attr())
      .def_readonly("eid", &MemoryAccess::eid)
      .def_readonly("thread", &MemoryAccess::tid)
      .def_readonly("pid", &MemoryAccess::pid)
      .def_readonly("pc", &MemoryAccess::pc)
      .def_property_readonly("kind", [](const MemoryAccess& a) { return query::access_kind_name(a.kind); })
      .def_readonly("addr", &MemoryAccess::addr)
      .def_readonly("size", &MemoryAccess::size)
      .def_property_readonly("value", [](const MemoryAccess& a) { return opt_bytes(a.value); }, "bytes, or None")
      .def_property_readonly("next", [](const MemoryAccess& a) { return query::to_string(a.next); })
      .def("__repr__", [](const MemoryAccess& a) { return "<ttd.MemoryAccess " + query::to_text(a) + ">"; });

  pyb::class_<RegisterChange>(m, "RegisterWrite", "A step that wrote a register.")
      .def_property_readonly("eid", [](const RegisterChange& r) { return r.write.eid; })
      .def_property_readonly("thread", [](const RegisterChange& r) { return r.write.tid; })
      .def_property_readonly("step_thread", [](const RegisterChange& r) { return r.write.step_tid; })
      .def_property_readonly("pc", [](const RegisterChange& r) { return r.write.pc; })
      .def_property_readonly("reg", [](const RegisterChange& r) { return r.trace->arch().regs[r.write.reg].name; })
      .def_property_readonly("value", &RegisterChange::value, "int, or None when the register became unknown")
      .def_property_readonly("sym", [](const RegisterChange& r) {
        auto s = r.trace->symbolizer().at(r.write.pc);
        return s ? text_or_none(s->sym()) : pyb::none();
      }, "function+offset of the pc (\"push+0x1b\"), or None")
      .def_property_readonly("src", [](const RegisterChange& r) {
        auto s = r.trace->symbolizer().at(r.write.pc);
        return s ? text_or_none(s->src()) : pyb::none();
      }, "source file:line of the pc, or None")
      .def_property_readonly("next", [](const RegisterChange& r) { return query::to_string(r.write.next); })
      .def("__repr__", [](const RegisterChange& r) { return "<ttd.RegisterWrite " + query::to_text(*r.trace, r.write) + ">"; });

  using query::Execution;
  pyb::class_<Execution>(m, "Execution", "A step that ran a queried pc.", pyb::dynamic_attr())
      .def_readonly("eid", &Execution::eid)
      .def_readonly("thread", &Execution::tid)
      .def_readonly("pc", &Execution::pc)
      .def_readonly("size", &Execution::size)
      .def_property_readonly("kind", [](const Execution& e) { return std::string(fmt::step_kind_name(e.kind)); })
      .def_property_readonly("next", [](const Execution& e) { return query::to_string(e.next); })
      .def("__repr__", [](const Execution& e) { return "<ttd.Execution " + query::to_text(e) + ">"; });

  using query::Call;
  pyb::class_<Call>(m, "Call", "A call with its entry and exit EIDs.", pyb::dynamic_attr())
      .def_readonly("index", &Call::index)
      .def_readonly("thread", &Call::tid)
      .def_readonly("depth", &Call::depth)
      .def_property_readonly("function", [](const Call& c) { return opt(c.function); },
                             "callee entry pc (instruction traces) or XRay function id")
      .def_readonly("function_pc", &Call::function_pc)
      .def_property_readonly("call_site", [](const Call& c) { return c.call_site ? opt(c.call_site) : pyb::none(); })
      .def_readonly("entry_eid", &Call::entry_eid)
      .def_property_readonly("exit_eid", [](const Call& c) { return opt(c.exit_eid); })
      .def_property_readonly("exit", [](const Call& c) { return query::call_exit_name(c.exit); })
      .def_property_readonly("return_value", [](const Call& c) { return opt(c.return_value); })
      .def_readonly("args", &Call::args)
      .def_readonly("symbol", &Call::symbol)
      .def("__repr__", [](const Call& c) { return "<ttd.Call " + query::to_text(c) + ">"; });

  using query::ValueMatch;
  pyb::class_<ValueMatch>(m, "Match", "Where a pattern lies in memory.")
      .def_readonly("pid", &ValueMatch::pid)
      .def_readonly("addr", &ValueMatch::addr)
      .def("__repr__", [](const ValueMatch& v) { return "<ttd.Match " + query::to_json(v) + ">"; });

  using query::Appearance;
  pyb::class_<Appearance>(m, "Appearance", "The first position whose memory holds a pattern.")
      .def_readonly("eid", &Appearance::eid)
      .def_property_readonly("writer_eid", [](const Appearance& a) { return opt(a.writer_eid); })
      .def_readonly("pid", &Appearance::pid)
      .def_readonly("addr", &Appearance::addr)
      .def("__repr__", [](const Appearance& a) { return "<ttd.Appearance " + query::to_json(a) + ">"; });
}

}  // namespace ttd::py
