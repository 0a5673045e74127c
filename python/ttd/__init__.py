"""ttd: time-travel queries over execution traces (UCIR, XRay, REVEN, Tenet, ...).

    import ttd
    t = ttd.open("list.ucir")
    c = t.cursor(1000)               # the machine state before step 1000
    for step in t.steps(0, 10): ...  # what each step did
    for w in t.memory_accesses(0x408140, 16, "w"): ...

The engine is the extension ttd._ttd; every name of it is re-exported here.
ttd.plot draws timelines and write heat maps (needs matplotlib).
docs/python.md describes every call.
"""

from ._ttd import *  # noqa: F401,F403  (the names are listed in _ttd.pyi)
from ._ttd import Error, Trace, __version__, open  # noqa: F401  (for readers and editors)
