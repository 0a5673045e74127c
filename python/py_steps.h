// Trace.steps(): an iterator over the steps of a range of the trace.
#pragma once
#include "py_support.h"

namespace ttd::py {

void bind_steps(pyb::module_& m, TraceClass& trace);

}  // namespace ttd::py
