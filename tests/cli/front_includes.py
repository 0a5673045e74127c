"""The front ends include only the engine's front-facing headers (issue 18):
every `#include "engine/..."` in tools/, dap/ and python/ must name a header that
engine/trace.h lists as front-facing; the rest of engine/ (index, step
codec, chunk decoders) is internal. Also the issue's own check: no
step_codec.h or index_file.h there at all.

Usage: front_includes.py SOURCE_DIR. Exit 1 naming each file:line."""
import os
import re
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "support"))
from cli_checks import check, finish  # noqa: E402

FRONT_ENDS = ("tools", "dap", "python")
INCLUDE = re.compile(r'^\s*#\s*include\s+"(engine/[^"]+)"')


def front_facing(source_dir):
    """The headers engine/trace.h's comment lists as front-facing."""
    with open(os.path.join(source_dir, "engine", "trace.h")) as f:
        head = f.read().split("#pragma once", 1)[0]
    listed = set(re.findall(r"engine/[\w/]+\.h", head.split("Front-facing headers", 1)[-1]))
    return listed


def engine_includes(source_dir):
    """(file:line, header) of every engine include in the front ends."""
    for top in FRONT_ENDS:
        for root, _, files in os.walk(os.path.join(source_dir, top)):
            for name in sorted(files):
                if not name.endswith((".h", ".cpp", ".cc")):
                    continue
                path = os.path.join(root, name)
                with open(path, errors="replace") as f:
                    for no, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m:
                            yield f"{os.path.relpath(path, source_dir)}:{no}", m.group(1)


def main():
    source_dir = sys.argv[1]
    listed = front_facing(source_dir)
    check(len(listed) > 10, f"engine/trace.h lists the front-facing headers ({len(listed)})")
    for header in sorted(listed):
        check(os.path.exists(os.path.join(source_dir, header)), f"{header} (listed front-facing) exists")
    seen = 0
    for where, header in engine_includes(source_dir):
        seen += 1
        if header not in listed:
            check(False, f"{where} includes {header}, which engine/trace.h does not list as front-facing")
        if header.endswith(("/step_codec.h", "/index_file.h")):
            check(False, f"{where} includes the internal {header}")
    check(seen > 0, f"the front ends' engine includes were found ({seen})")
    finish()
    print("every engine include of tools/ and dap/ is front-facing")


if __name__ == "__main__":
    main()
