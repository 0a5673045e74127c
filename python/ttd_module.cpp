// The `ttd` Python module: open a trace, move a cursor over it both ways,
// read registers and memory, and ask the history queries (engine/query)
// as iterators. Engine errors are values in C++; they become ttd.Error
// here, at the Python boundary and nowhere else.
#include <Python.h>

#include <exception>
#include <new>
#include <string>

#include "py_steps.h"
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

InterruptCheck python_cancel() {
  return [] {
    pyb::gil_scoped_acquire gil;
    return PyErr_CheckSignals() != 0;
  };
}

}  // namespace ttd::py

// The extension is ttd._ttd; the package ttd (python/ttd/__init__.py)
// re-exports it beside pure-Python helpers (ttd.plot) and type stubs.
PYBIND11_MODULE(_ttd, m) {
  using namespace ttd::py;
  m.doc() = "ttd: time-travel queries over execution traces (UCIR, XRay, REVEN, Tenet, ...)";
  error_type() = pyb::reinterpret_steal<pyb::object>(
      PyErr_NewExceptionWithDoc("ttd.Error", "A trace could not be opened or a query was malformed or failed.",
                                PyExc_ValueError, nullptr));
  m.attr("Error") = error_type();
  m.attr("__version__") = TTD_VERSION;  // the project version in CMakeLists.txt
  // A C++ exception that escapes the engine (it should return an Error
  // value) is still an engine error to Python: ttd.Error, not
  // RuntimeError. pybind11's own exceptions (StopIteration, IndexError,
  // casts) and bad_alloc (MemoryError) pass to its translators.
  pyb::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const pyb::builtin_exception&) {
      throw;
    } catch (const pyb::error_already_set&) {
      throw;
    } catch (const std::bad_alloc&) {
      throw;
    } catch (const std::exception& e) {
      PyErr_SetString(error_type().ptr(), (std::string("internal error: ") + e.what()).c_str());
    }
  });
  bind_hits(m);
  TraceClass trace = bind_trace(m);
  bind_cursor(m, trace);
  bind_queries(m, trace);
  bind_steps(m, trace);
  bind_origin(trace);
}
