// ttd.open() and ttd.Trace: what a trace is (format, arch, steps,
// threads, registers) and its index statistics.
#include <pybind11/stl.h>

#include "engine/trace.h"
#include "py_support.h"

namespace ttd::py {

namespace {

std::shared_ptr<Trace> open_trace(const std::string& path, const std::string& format, const std::string& index,
                                  const std::string& cache_dir, bool rebuild, uint32_t keyframe_interval,
                                  const std::string& instr_map, const std::string& program,
                                  const std::vector<std::string>& symbols) {
  OpenOptions o;
  o.format = format;
  o.index_path = index;
  o.cache_dir = cache_dir;
  o.rebuild = rebuild;
  o.keyframe_interval = keyframe_interval;
  o.reader.instr_map_binary = instr_map;
  o.program = program;
  for (const auto& s : symbols) o.symbol_files.push_back(unwrap(parse_symbol_file(s, "symbols")));
  Result<std::shared_ptr<Trace>> t = [&] {
    pyb::gil_scoped_release nogil;  // importing a large trace takes a while
    return Trace::open(path, o);
  }();
  return unwrap(std::move(t));
}

pyb::dict stats_dict(const Trace& t) {
  const IndexStats& s = t.stats();
  pyb::dict d;
  d["steps"] = s.steps;
  d["chunks"] = s.chunks;
  d["keyframes"] = s.keyframes;
  d["chunk_steps"] = t.chunk_steps();
  d["unique_pages"] = s.unique_pages;
  d["index_bytes"] = s.index_bytes;
  d["source_bytes"] = s.source_bytes;
  d["build_seconds"] = s.build_seconds;
  d["reused"] = s.reused;
  d["index_path"] = s.index_path;
  return d;
}

// {"sym", "src", "function", "offset", "file", "line", "module"} or None.
pyb::object symbol_of(const Trace& t, uint64_t pc) {
  auto s = t.symbolizer().at(pc);
  if (!s) return pyb::none();
  pyb::dict d;
  d["sym"] = s->sym().empty() ? pyb::object(pyb::none()) : pyb::object(pyb::str(s->sym()));
  d["src"] = s->src().empty() ? pyb::object(pyb::none()) : pyb::object(pyb::str(s->src()));
  d["function"] = s->function.empty() ? pyb::object(pyb::none()) : pyb::object(pyb::str(s->function));
  d["offset"] = s->offset;
  d["file"] = s->file.empty() ? pyb::object(pyb::none()) : pyb::object(pyb::str(s->file));
  d["line"] = s->line ? pyb::object(pyb::int_(s->line)) : pyb::object(pyb::none());
  d["module"] = s->module;
  return d;
}

pyb::list threads_list(const Trace& t) {
  pyb::list out;
  for (const ThreadInfo& th : t.threads()) {
    pyb::dict d;
    d["tid"] = th.tid;
    d["pid"] = th.pid;
    d["first_eid"] = th.first_eid;
    d["last_eid"] = th.last_eid;
    d["steps"] = th.steps;
    out.append(d);
  }
  return out;
}

}  // namespace

TraceClass bind_trace(pyb::module_& m) {
  // The default and the range come from the engine (the CLI shows the same).
  static const std::string open_doc =
      "Opens a trace, building its index on first use (next to the trace, or in cache_dir).\n"
      "keyframe_interval: steps per chunk when building the index, " +
      std::to_string(kMinKeyframeInterval) + ".." + std::to_string(kMaxKeyframeInterval) + " (default " +
      std::to_string(kDefaultKeyframeInterval) + ").\n"
      "program: the traced ELF, for code bytes the trace lacks (default: the program the trace names, if it\n"
      "exists and fits).\n"
      "symbols: more ELF files naming pcs, each \"FILE\" or \"FILE@LOADADDR\" (shared objects).\n"
      "Errors raise ttd.Error.";
  m.def("open", &open_trace, pyb::arg("path"), pyb::kw_only(), pyb::arg("format") = "", pyb::arg("index") = "",
        pyb::arg("cache_dir") = "", pyb::arg("rebuild") = false,
        pyb::arg("keyframe_interval") = kDefaultKeyframeInterval, pyb::arg("instr_map") = "",
        pyb::arg("program") = "", pyb::arg("symbols") = std::vector<std::string>{}, open_doc.c_str());

  TraceClass cls(m, "Trace", "An opened, indexed trace. Positions (EIDs) run from 0 to step_count.");
  cls.def_property_readonly("path", &Trace::path)
      .def_property_readonly("format", [](const Trace& t) { return t.info().format; })
      .def_property_readonly("arch", [](const Trace& t) { return t.arch().name; })
      .def_property_readonly("os", [](const Trace& t) { return t.info().os; })
      .def_property_readonly("exec_path", [](const Trace& t) { return t.info().exec_path; })
      .def_property_readonly("code_source", &Trace::code_source, "Where code bytes come from (trace, program ELF).")
      .def("symbol", &symbol_of, pyb::arg("pc"),
           "What names pc: {sym: 'push+0x1b', src: '/src/list.c:42', function, offset, file, line, module}, or None.")
      .def_property_readonly("step_count", &Trace::step_count)
      .def("__len__", &Trace::step_count)
      .def_property_readonly("threads", &threads_list, "Threads: tid, pid, first_eid, last_eid, steps.")
      .def_property_readonly("stats", &stats_dict, "Index statistics: steps, chunks, keyframes, pages, sizes.")
      .def_property_readonly("registers",
                             [](const Trace& t) {
                               std::vector<std::string> names;
                               for (const auto& r : t.arch().regs) names.push_back(r.name);
                               return names;
                             })
      .def("__repr__", [](const Trace& t) {
        return "<ttd.Trace " + t.path() + " (" + t.info().format + ", " + t.arch().name + ", " +
               std::to_string(t.step_count()) + " steps)>";
      });
  return cls;
}

}  // namespace ttd::py
