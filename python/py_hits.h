// Python-side wrappers for hits that need the trace to be read (register
// names and values).
#pragma once
#include "engine/query/register_history.h"
#include "py_support.h"

namespace ttd::py {

// Sets o.sym and o.src (None when unknown) on a hit object whose class
// has dynamic attributes (MemoryAccess, Execution, Call).
void set_symbol_attrs(pyb::object& o, const std::optional<PcSymbol>& s);

struct RegisterChange {
  query::RegisterWrite write;
  std::shared_ptr<const Trace> trace;
  pyb::object value() const;
};

}  // namespace ttd::py
