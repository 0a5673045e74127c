"""Shell commands where other processes name the recorded one by its pid,
recorded through `ttd record -- /bin/bash -c CMD` (docs/recording.md,
"Process"): stdout and exit status are the native run's. `ttd record`
gives the program the recorder's own host pid, so a child's $PPID, kill
$$ from another program, /proc/$$ and ps -p $$ reach the recorded
process. Every line differed while the program saw pid 4242 (still what
`--pid 4242` gives): programs the shell ran natively found no process
4242, or on a host with one, another process; the program's parent was
pid 1 and its process group and session its own. And a select with a
timeout on a child's pipe, which timed out at once.
Every command runs natively first and must print what the list says, so a
host where one differs skips rather than compares against a wrong
expectation."""
import os
import shutil
import sys

from shell_lines import compare_with_native

ttd = sys.argv[1]
for tool in ("/bin/bash", "/bin/kill", "/usr/bin/perl"):
    if not os.path.exists(tool) or not shutil.which("ps"):
        print("skip: no", tool, "or ps")
        sys.exit(77)
CASES = [
    # sh runs natively in a child bash forked: its parent is the shell.
    ("test \"$(sh -c 'echo $PPID')\" = $$ && echo child-sees-parent", b"child-sees-parent\n"),
    # Another program signals the shell by its pid.
    ("/bin/kill -0 $$ && echo reached", b"reached\n"),
    ("trap 'echo got-usr1' USR1; /bin/kill -USR1 $$; echo after", b"got-usr1\nafter\n"),
    # Another program reads the shell's /proc directory and finds its name.
    ("cut -d' ' -f1 /proc/$$/stat | grep -qx $$ && echo own-proc-dir", b"own-proc-dir\n"),
    ("ps -o comm= -p $$; true", b"bash\n"),
    # The shell's own view (its /proc/self/stat: getppid, process group,
    # session) is what ps says of it from outside.
    ("read -r _ _ _ ppid pgrp sid _ < /proc/self/stat;"
     " test \"$ppid $pgrp $sid\" = \"$(ps -o ppid=,pgid=,sid= -p $$ | xargs)\" && echo stat-is-ps", b"stat-is-ps\n"),
    # bash execs perl (recorded): its parent is the process that ran it.
    ("perl -e 'print kill(0, getppid()) ? \"parent-alive\\n\" : \"none\\n\"'", b"parent-alive\n"),
    # A select with a timeout on a child's pipe waits for the child (it
    # timed out at once until 2026-11-29: virtual time).
    ("python3 -c 'import subprocess, select\n"
     "p = subprocess.Popen([\"sh\", \"-c\", \"sleep 0.2; echo hi\"], stdout=subprocess.PIPE)\n"
     "print(select.select([p.stdout], [], [], 30)[0] != [])'", b"True\n"),
]
compare_with_native(ttd, CASES)
