"""Shell commands that use the process's own descriptors, resource limits
and priority, recorded through `ttd record -- /bin/bash -c CMD`
(docs/recording.md, "Process" and "Files"): stdout and exit status are the
native run's, byte for byte. Each line once differed:
- bash's process substitution opens /dev/fd/63, and `head /dev/stdin`
  after `exec 0<file` opens /dev/stdin: on the host those named the
  recorder's descriptors (ENOENT, or the wrong file); stat -L of
  /dev/fd/3 and /proc/self/fd/3 gave the size of the recorder's fd 3;
- `ulimit -n` said 1024 whatever the limit, and a lowered limit was
  neither reported back nor enforced;
- getpriority and setpriority were ENOSYS (`nice` failed);
- /proc listed the recorder's pid, not the program's: `ps -p $$` found
  nothing;
- memfd_create, times, getrusage, sched_getscheduler, sched_getparam and
  sched_get_priority_max/min were ENOSYS.
Every command runs natively first and must print what the list says, so a
host where one differs (another nice value, limits) skips rather than
compares against a wrong expectation."""
import os
import sys

from shell_lines import compare_with_native

ttd = sys.argv[1]
if not os.path.exists("/bin/bash") or not os.path.exists("/usr/bin/python3"):
    print("skip: no bash or python3")
    sys.exit(77)
CASES = [
    ("cat <(echo from-subst) <(echo second)", b"from-subst\nsecond\n"),
    ("diff <(seq 3) <(seq 4); echo $?", b"3a4\n> 4\n1\n"),
    ("exec 3<words; head -1 /dev/fd/3; stat -L -c %s /dev/fd/3 /proc/self/fd/3", b"alpha\n11\n11\n"),
    ("exec 0<words; head -1 /dev/stdin; readlink /dev/stdin", b"alpha\n/proc/self/fd/0\n"),
    ("ulimit -n 64; ulimit -n; python3 -c 'import resource; print(resource.getrlimit(resource.RLIMIT_NOFILE)[0])'",
     b"64\n64\n"),
    ("python3 -c 'import resource, os\n"
     "resource.setrlimit(resource.RLIMIT_NOFILE, (8, 8)); fds = []\n"
     "try:\n  [fds.append(os.open(\"/dev/null\", 0)) for _ in range(10)]\n"
     "except OSError as e: print(len(fds), e.errno)'", b"5 24\n"),
    # sh is a child bash forks (unrecorded) and execs natively: it gets the limit too.
    ("ulimit -n 64; sh -c 'ulimit -n'; true", b"64\n"),
    ("ulimit -Sn 50; ulimit -Hn 100; ulimit -Hn 200 2>/dev/null; echo $?; ulimit -Hn", b"1\n100\n"),
    ("nice -n 5 nice", b"5\n"),
    ("python3 -c 'import os; print(os.nice(3), os.getpriority(os.PRIO_PROCESS, 0))'", b"3 3\n"),
    # /proc lists the program's pid (the recorder's own directory renamed):
    # ps finds it (bash execs ps itself, so ps is recorded too).
    ("python3 -c 'import os; print(str(os.getpid()) in os.listdir(\"/proc\"))'", b"True\n"),
    ("ps -o comm= -p $$", b"ps\n"),
    # times, getrusage and the scheduler queries were ENOSYS.
    ("python3 -c 'import os, resource\nt = os.times(); r = resource.getrusage(resource.RUSAGE_SELF)\n"
     "print(t.elapsed > 0, r.ru_maxrss > 1000, os.sched_getscheduler(0), os.sched_getparam(0).sched_priority,"
     " os.sched_get_priority_max(os.SCHED_FIFO))'", b"True True 0 0 99\n"),
    # memfd_create was ENOSYS; a shared mapping of it reaches the file.
    ("python3 -c 'import os, mmap\nfd = os.memfd_create(\"x\"); os.ftruncate(fd, 4096)\n"
     "m = mmap.mmap(fd, 4096); m[0:2] = b\"hi\"; m.flush()\n"
     "print(os.pread(fd, 2, 0), os.readlink(\"/proc/self/fd/%d\" % fd), os.get_inheritable(fd))'",
     b"b'hi' /memfd:x (deleted) False\n"),
]


def write_words(work):
    with open(os.path.join(work, "words"), "w") as f:
        f.write("alpha\nbeta\n")


compare_with_native(ttd, CASES, write_words)
