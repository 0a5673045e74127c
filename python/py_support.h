// Shared by the binding files of the `ttd` Python module: the exception
// type engine errors become, unwrapping Result values, and the cancel
// check that lets Ctrl-C interrupt a long query.
#pragma once
#include <pybind11/pybind11.h>

#include <memory>

#include "engine/motion_types.h"
#include "engine/trace.h"
#include "state/error.h"

namespace ttd::py {

namespace pyb = pybind11;

// ttd.Error, created by the module at import.
pyb::object& error_type();

// Raises ttd.Error with the engine's message (or re-raises a pending
// KeyboardInterrupt when the error is an interrupted query).
[[noreturn]] void raise(const Error& e);

template <class T>
T unwrap(Result<T> r) {
  if (!r) raise(r.error());
  return std::move(*r);
}
inline void check(const Status& s) {
  if (!s) raise(s.error());
}

// Polls Python's signal handlers (takes the GIL for the check).
InterruptCheck python_cancel();

using TraceClass = pyb::class_<Trace, std::shared_ptr<Trace>>;

void bind_hits(pyb::module_& m);
TraceClass bind_trace(pyb::module_& m);
void bind_cursor(pyb::module_& m, TraceClass& trace);
void bind_queries(pyb::module_& m, TraceClass& trace);
void bind_origin(TraceClass& trace);

}  // namespace ttd::py
