"""Inputs of the corpus's recipes (scripts/bench-corpus.sh), generated at
benchmark time with a fixed seed, so each run records the same program on
the same bytes:

    gen_inputs.py sql OUT ROWS    SQL for sqlite3 :memory: - a table of ROWS
                                  rows inserted 100 a statement in one
                                  transaction, an index built on it, queries
    gen_inputs.py text OUT KB     KB KiB of word-like text with some numbers,
                                  for the compressor
"""
import random
import sys


def words(r, count):
    return " ".join("".join(chr(97 + r.randrange(26)) for _ in range(3 + r.randrange(9))) for _ in range(count))


def sql(out, rows):
    r = random.Random(1)
    with open(out, "w") as f:
        f.write("CREATE TABLE t(id INTEGER PRIMARY KEY, k INTEGER, name TEXT, v REAL);\nBEGIN;\n")
        for start in range(0, rows, 100):
            values = ",".join("(%d,'%s',%.3f)" % (r.randrange(1 << 20), words(r, 2), r.random() * 1000)
                              for _ in range(min(100, rows - start)))
            f.write("INSERT INTO t(k, name, v) VALUES %s;\n" % values)
        f.write("COMMIT;\nCREATE INDEX t_k ON t(k);\nCREATE INDEX t_name ON t(name);\n")
        f.write("SELECT count(*), round(sum(v), 3) FROM t WHERE k BETWEEN 1000 AND 300000;\n")
        for _ in range(20):
            f.write("SELECT id, name FROM t WHERE k >= %d ORDER BY k LIMIT 3;\n" % r.randrange(1 << 20))
        f.write("SELECT k % 97 AS g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 5;\n")
        f.write("SELECT substr(name, 1, 1) AS c, count(*) FROM t GROUP BY c ORDER BY c;\n")


def text(out, kib):
    r = random.Random(2)
    target = kib * 1024
    with open(out, "w") as f:
        written = 0
        while written < target:
            line = "%s %d\n" % (words(r, 8), r.randrange(100000))
            f.write(line)
            written += len(line)


def main():
    if len(sys.argv) != 4 or sys.argv[1] not in ("sql", "text"):
        sys.exit(__doc__)
    {"sql": sql, "text": text}[sys.argv[1]](sys.argv[2], int(sys.argv[3]))


if __name__ == "__main__":
    main()
