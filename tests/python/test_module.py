#!/usr/bin/env python3
"""The ttd Python module against the call program (tests/query/call_program.h):
opening, statistics, a cursor both ways with breakpoints and watchpoints,
registers and memory with unknown as None, every query as an iterator
with brute-force answers, and bad input as ttd.Error."""

import struct
import sys
import unittest

import ttd

TRACE = None  # set from the command line
MAIN, F, G, SLED, STACK_TOP = 0x400000, 0x400100, 0x400200, 0x400300, 0x7FF000
ITERATIONS = 20


class ModuleTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.t = ttd.open(TRACE, keyframe_interval=64)

    def test_trace(self):
        t = self.t
        self.assertEqual(t.arch, "x86_64")
        self.assertEqual(t.format, "ucir")
        self.assertEqual(t.step_count, 7 * ITERATIONS + 1)  # the exit syscall's step ends it
        self.assertEqual(len(t), t.step_count)
        self.assertEqual(t.stats["steps"], t.step_count)
        self.assertGreater(t.stats["chunks"], 1)
        self.assertIn("rax", t.registers)
        self.assertEqual(t.threads[0]["steps"], t.step_count)

    def test_cursor_moves_and_state(self):
        c = self.t.cursor()
        self.assertEqual((c.eid, c.pc), (0, MAIN))
        self.assertEqual(c.register("rsp"), STACK_TOP)
        self.assertIsNone(c.register("xmm0"))  # never in the trace: unknown, not 0
        self.assertEqual(c.step_forward().eid, 1)
        self.assertEqual(c.pc, F)
        self.assertEqual(c.read_bytes(STACK_TOP - 8, 8), struct.pack("<Q", MAIN + 5))
        self.assertEqual(c.memory(0x100, 2), [None, None])  # unmapped: unknown
        self.assertEqual(c.memory(MAIN, 1), [0xE8])
        self.assertEqual(c.step_backward().eid, 0)
        c.add_breakpoint(G)
        stop = c.continue_forward()
        self.assertEqual((stop.kind, stop.eid, c.pc), ("breakpoint", 3, G))
        stop = c.continue_forward()
        self.assertEqual(stop.eid, 10)
        stop = c.continue_backward()
        self.assertEqual(stop.eid, 3)
        c.clear_stops()
        c.add_watchpoint(STACK_TOP - 16, 8, "w")
        c.seek(self.t.step_count)
        stop = c.continue_backward()
        self.assertEqual(stop.kind, "watchpoint")
        self.assertEqual(stop.hit_eid, 7 * (ITERATIONS - 1) + 2)
        regs = c.registers()
        self.assertIsNone(regs["xmm0"])
        self.assertEqual(regs["rsp"], STACK_TOP - 8)
        with self.assertRaisesRegex(ttd.Error, "out of range"):
            c.seek(10**9)
        with self.assertRaisesRegex(ttd.Error, "no register 'nope'"):
            c.register("nope")

    def test_memory_history(self):
        slot = STACK_TOP - 16  # g's return address slot
        writes = list(self.t.memory_accesses(slot, 8, "w"))
        self.assertEqual([w.eid for w in writes], [7 * i + 2 for i in range(ITERATIONS)])
        self.assertEqual(writes[0].value, struct.pack("<Q", F + 10))
        self.assertEqual(writes[0].kind, "write")
        reads = list(self.t.memory_accesses(slot, 8, "r", backward=True))
        self.assertEqual([r.eid for r in reads], [7 * i + 4 for i in reversed(range(ITERATIONS))])
        self.assertIsNone(reads[0].value)  # the trace does not record values read
        # Resuming after a hit continues right after it.
        first = list(self.t.memory_accesses(slot, 8, at=30, backward=True))[:3]
        again = next(iter(self.t.memory_accesses(slot, 8, at=30, backward=True, resume=first[0].next)))
        self.assertEqual(again.eid, first[1].eid)

    def test_registers(self):
        w = self.t.previous_register_write("rax", 5)
        self.assertEqual((w.eid, w.value, w.reg), (3, 7, "rax"))
        self.assertEqual(self.t.next_register_write("rax", 4).eid, 8)
        self.assertIsNone(self.t.previous_register_write("rbx", self.t.step_count))
        changes = list(self.t.register_writes("rsp", start=0, end=14))
        self.assertEqual([c.eid for c in changes], [0, 2, 4, 5, 7, 9, 11, 12])

    def test_origin(self):
        # rax at EID 4 was set by g's `mov eax, 7` (EID 3): an immediate.
        o = self.t.origin(at=4, reg="rax", depth=2)
        root = o["root"]
        self.assertEqual((root["origin"], root["value"], root["step"]["eid"]), ("write", "0x7", 3))
        self.assertEqual(root["step"]["insn"], "mov eax, 7")
        self.assertEqual([(i["origin"], i["value"]) for i in root["inputs"]], [("constant", "0x7")])
        # The return address on the stack: pushed by main's call (EID 0).
        m = self.t.origin(at=4, mem=(0x7feff8, 8))["root"]
        self.assertEqual((m["step"]["eid"], m["step"]["insn"]), (0, "call 0x400100"))
        with self.assertRaisesRegex(ttd.Error, "exactly one of reg= and mem="):
            self.t.origin(at=4)
        with self.assertRaisesRegex(ttd.Error, "depth"):
            self.t.origin(at=4, reg="rax", depth=0)

    def test_executions(self):
        runs = list(self.t.executions(G))
        self.assertEqual([e.eid for e in runs], [7 * i + 3 for i in range(ITERATIONS)])
        timeline = list(self.t.executions(MAIN, 0x300, resolution=35))
        self.assertEqual(len(timeline), -(-self.t.step_count // 35))

    def test_calls(self):
        calls = list(self.t.calls())
        self.assertEqual(len(calls), 2 * ITERATIONS)
        f, g = calls[0], calls[1]
        self.assertEqual((f.function, f.entry_eid, f.exit_eid, f.return_value, f.depth), (F, 0, 5, 7, 0))
        self.assertEqual((g.function, g.call_site, g.depth, g.exit), (G, F + 5, 1, "return"))
        only_g = list(self.t.calls(function=G, order="exit"))
        self.assertEqual(len(only_g), ITERATIONS)

    def test_value_search(self):
        pattern = struct.pack("<Q", F + 10)
        self.assertEqual([m.addr for m in self.t.search_memory(pattern, 3)], [STACK_TOP - 16])
        self.assertEqual(self.t.search_memory("e8fb000000", 0)[0].addr, MAIN)
        a = self.t.first_appearance(pattern)
        self.assertEqual((a.eid, a.writer_eid, a.addr), (3, 2, STACK_TOP - 16))
        self.assertIsNone(self.t.first_appearance(b"\xde\xad\xbe\xef"))

    def test_bad_input(self):
        t = self.t
        cases = [
            (lambda: list(t.memory_accesses(0x1000, 0)), "empty address range"),
            (lambda: list(t.memory_accesses(2**64 - 4, 16)), "overflows"),
            (lambda: list(t.memory_accesses(0x1000, 4, start=9, end=3)), "reversed EID window"),
            (lambda: list(t.memory_accesses(0x1000, 4, start=5, end=5)), "empty EID window"),
            (lambda: list(t.memory_accesses(0x1000, 4, end=10**9)), "out of range"),
            (lambda: list(t.memory_accesses(0x1000, 4, "x")), "expected r, w or rw"),
            (lambda: list(t.memory_accesses(0x1000, 4, resume="zz")), "EID\\+SKIP"),
            (lambda: list(t.register_writes("nope")), "no register 'nope'"),
            (lambda: t.previous_register_write("rip", 3), "every step changes"),
            (lambda: t.previous_register_write("rax", 10**9), "out of range"),
            (lambda: list(t.executions(MAIN, 0)), "empty pc range"),
            (lambda: list(t.calls(start=9, end=2)), "reversed"),
            (lambda: t.search_memory("0xzz", 0), "malformed hex"),
            (lambda: t.search_memory("abc", 0), "odd number"),
            (lambda: t.search_memory(b"", 0), "empty byte pattern"),
            (lambda: t.search_memory("00", 10**9), "out of range"),
            (lambda: ttd.open("/nonexistent/trace"), "cannot open"),
        ]
        for fn, message in cases:
            with self.subTest(message=message):
                with self.assertRaisesRegex(ttd.Error, message):
                    fn()
        self.assertTrue(issubclass(ttd.Error, ValueError))

    def test_open_options_checked_by_the_engine(self):
        # The CLI refuses --keyframe-interval below 16; so must the module
        # (1 made the index 67 times the trace).
        for k in (0, 1, 15):
            with self.subTest(keyframe_interval=k):
                with self.assertRaisesRegex(ttd.Error, "keyframe_interval: %d is out of range 16" % k):
                    ttd.open(TRACE, keyframe_interval=k, rebuild=True)
        self.assertIn("default 3072", ttd.open.__doc__)  # kDefaultKeyframeInterval
        self.assertIn("keyframe_interval: int = 3072", ttd.open.__doc__)

    def test_index_path_that_is_not_an_index_is_kept(self):
        import os
        import tempfile

        with tempfile.TemporaryDirectory() as d:
            notes = os.path.join(d, "x.txt")
            with open(notes, "w") as f:
                f.write("notes\n")
            with self.assertRaisesRegex(ttd.Error, "not a ttd index"):
                ttd.open(TRACE, index=notes)
            with open(notes) as f:
                self.assertEqual(f.read(), "notes\n")


if __name__ == "__main__":
    TRACE = sys.argv.pop(1)
    unittest.main()
