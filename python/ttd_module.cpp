// The `ttd` Python module: open a trace, move a cursor over it both ways,
// read registers and memory, and ask the history queries (engine/query)
// as iterators. Engine errors are values in C++; they become ttd.Error
// here, at the Python boundary and nowhere else.
#include <Python.h>

#include "py_support.h"

namespace ttd::py {

pyb::object& error_type() {
  static pyb::object* type = nullptr;
  if (!type) type = new pyb::object();  // lives as long as the interpreter (never destroyed at exit)
  return *type;
}

[[noreturn]] void raise(const Error& e) {
  if (e.message == "interrupted" && PyErr_Occurred()) throw pyb::error_already_set();
  PyErr_SetString(error_type().ptr(), e.to_string().c_str());
  throw pyb::error_already_set();
}

query::CancelCheck python_cancel() {
  return [] {
    pyb::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  };
}

}  // namespace ttd::py

PYBIND11_MODULE(ttd, m) {
  using namespace ttd::py;
  m.doc() = "ttd: time-travel queries over execution traces (UCIR, XRay, REVEN, Tenet, ...)";
  error_type() = pyb::reinterpret_steal<pyb::object>(
      PyErr_NewExceptionWithDoc("ttd.Error", "A trace could not be opened or a query was malformed or failed.",
                                PyExc_ValueError, nullptr));
  m.attr("Error") = error_type();
  bind_hits(m);
  TraceClass trace = bind_trace(m);
  bind_cursor(m, trace);
  bind_queries(m, trace);
}
