"""ELF symbols for the example analyses: names for addresses and
addresses for names, read with binutils' `nm` (the examples are static
executables with symbol tables)."""

import bisect
import subprocess


class Symbols:
    def __init__(self, elf_path):
        out = subprocess.run(["nm", "--defined-only", "-S", elf_path], check=True,
                             capture_output=True, text=True).stdout
        self.by_name = {}
        entries = []
        for line in out.splitlines():
            parts = line.split()
            if len(parts) == 4:
                addr, size, kind, name = parts
                size = int(size, 16)
            elif len(parts) == 3:
                addr, kind, name = parts
                size = 0
            else:
                continue
            addr = int(addr, 16)
            self.by_name.setdefault(name, (addr, size))
            if kind in "tTwW":
                entries.append((addr, size, name))
        entries.sort()
        self.functions = entries
        self.starts = [e[0] for e in entries]

    def address(self, name):
        """(address, size) of a symbol; KeyError if the ELF has none."""
        return self.by_name[name]

    def function_at(self, pc):
        """Name of the function holding pc ('0x...' when none does)."""
        if pc is None:
            return "?"
        i = bisect.bisect_right(self.starts, pc) - 1
        if i >= 0:
            addr, size, name = self.functions[i]
            if pc == addr or pc < addr + max(size, 1):
                return name if pc == addr else f"{name}+{pc - addr:#x}"
        return f"{pc:#x}"

    def function_name(self, entry_pc):
        name = self.function_at(entry_pc)
        return name.split("+")[0] if entry_pc is not None else "?"
