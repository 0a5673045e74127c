// Python-side wrappers for hits that need the trace to be read (register
// names and values).
#pragma once
#include "engine/query/register_history.h"
#include "py_support.h"

namespace ttd::py {

struct RegisterChange {
  query::RegisterWrite write;
  std::shared_ptr<const Trace> trace;
  pyb::object value() const;
};

}  // namespace ttd::py
