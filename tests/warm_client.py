"""The stand-in a test starts for a program the warm interpreter plays (see tests/warm.py).

``python -I -S warm_client.py SOCKET KIND TARGET ARG...``: hands the server this process's
standard input, output and error, its arguments, environment, working directory and ignored
signals; passes on the signals it is sent (TERM, INT, HUP, QUIT, USR1, USR2); ends as the
program ended (its exit code, or killed by the same signal). Killed itself (SIGKILL), its
closed socket tells the server, which kills the program's process group. Standard library
only, no site: it starts in a few milliseconds.
"""

import json
import os
import signal
import socket
import struct
import sys

#: The signals passed on to the program (SIGKILL and SIGSTOP cannot be caught).
FORWARDED = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT", "SIGUSR1", "SIGUSR2")


def main() -> None:
    path, kind, target, *args = sys.argv[1:]
    ignored = [n for n in FORWARDED if signal.getsignal(getattr(signal, n)) == signal.SIG_IGN]
    request = json.dumps({"kind": kind, "target": target, "args": args, "cwd": os.getcwd(),
                          "env": dict(os.environ), "ignored": ignored}).encode()  # fmt: skip
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.connect(path)
    head = struct.pack("!I", len(request))
    socket.send_fds(conn, [head], [0, 1, 2])
    conn.sendall(request)

    def forward(signum, _frame) -> None:
        conn.sendall(bytes([signum]))

    for name in FORWARDED:
        if name not in ignored:
            signal.signal(getattr(signal, name), forward)
    reply = b""
    while not reply.endswith(b"\n"):
        chunk = conn.recv(64)
        if not chunk:  # the server went away: the program's fate is unknown
            sys.stderr.write("warm_client: the warm server closed the connection\n")
            os._exit(70)
        reply += chunk
    status = int(reply)
    if status < 0:  # killed by a signal: so is this process
        signal.signal(-status, signal.SIG_DFL)
        os.kill(os.getpid(), -status)
        os._exit(128 - status)
    os._exit(status)


if __name__ == "__main__":
    main()
