"""Commands run as processes forked from a warm interpreter: :func:`run_command`.

A command started as ``python -c "from boggle_dafsa.cli import main; main()" ...`` spends
0.3 CPU-s before it does anything (the interpreter's start, the package's and typer's
imports), and the suite runs well over a thousand of them. Here each command is still a
process of its own, with its own arguments, working folder, environment, standard input,
output and error, resource limits and exit status, but it is forked from a server process
that started once (a test worker's first command) and imported the command-line modules:
the command's own work is all that is left (about 0.02 CPU-s for a small one).

What a forked command cannot share with a fresh interpreter falls back to one: an
environment whose start-up variables (``PYTHON*``, ``LC_*``, ``LANG``) differ from the
server's, a command run where the server cannot fork, or ``BOGGLE_DAFSA_TEST_FRESH=1`` (to
rule the server out when a test fails). The tests of what a fresh start does (the console
script, a Ctrl-C during the imports, the README's commands in ``sh``) start their own
processes and never come here.
"""

from __future__ import annotations

import atexit
import json
import locale
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from pathlib import Path

#: The command line a fresh command runs with (and the one a forked command shows in its ``sys.argv``).
PROGRAM = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()"]
#: Set to 1: every command runs in a fresh interpreter.
FRESH_VARIABLE = "BOGGLE_DAFSA_TEST_FRESH"

# The server: single-threaded (a fork copies only the thread that forks, so nothing it holds
# is left locked in the child). It reads one request a line on its standard input, forks,
# answers the child's pid, waits for it and answers its exit status; the child makes its
# standard streams, folder, environment and limits the request's, runs the command and ends
# as the interpreter would (threads joined, atexit functions run, streams flushed).
SERVER = r"""
import importlib, json, os, pkgutil, resource, signal, sys, tempfile, threading, atexit, traceback
import boggle_dafsa.cli
for module in pkgutil.iter_modules(boggle_dafsa.cli.__path__):
    importlib.import_module("boggle_dafsa.cli." + module.name)
# A Ctrl-C at the terminal reaches the whole process group: the server carries on quietly
# (the test run ends it), each command takes it as a fresh interpreter does.
signal.signal(signal.SIGINT, signal.SIG_IGN)
requests = os.fdopen(os.dup(0), "rb")
replies = os.dup(1)
null = os.open(os.devnull, os.O_RDWR)
os.dup2(null, 0)
os.dup2(2, 1)


def exit_code(stop):
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code
    print(stop.code, file=sys.stderr)
    return 1


def child(request):
    signal.signal(signal.SIGINT, signal.default_int_handler)
    requests.close()
    os.close(replies)
    for fd, path, flags in ((0, request["stdin"] or os.devnull, os.O_RDONLY), (1, request["stdout"], os.O_WRONLY), (2, request["stderr"], os.O_WRONLY)):
        opened = os.open(path, flags)
        os.dup2(opened, fd)
        os.close(opened)
    os.close(null)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    tempfile.tempdir = None
    for name, soft, hard in request["limits"]:
        resource.setrlimit(getattr(resource, name), (soft, hard))
    sys.argv = ["-c", *request["args"]]
    code = 0
    try:
        boggle_dafsa.cli.main()
    except SystemExit as stop:
        code = exit_code(stop)
    except BaseException:
        traceback.print_exc()
        code = 1
    try:
        threading._shutdown()
        atexit._run_exitfuncs()
    except BaseException:
        traceback.print_exc()
        code = code or 1
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 120
    os._exit(code)


for line in requests:
    request = json.loads(line)
    pid = os.fork()
    if pid == 0:
        try:
            child(request)
        finally:
            os._exit(70)
    os.write(replies, (json.dumps({"pid": pid}) + "\n").encode())
    _, status = os.waitpid(pid, 0)
    os.write(replies, (json.dumps({"status": os.waitstatus_to_exitcode(status)}) + "\n").encode())
"""


def _startup(environment: dict[str, str]) -> dict[str, str]:
    """The variables an interpreter reads once, as it starts."""
    return {name: value for name, value in environment.items() if name.startswith(("PYTHON", "LC_", "LANG"))}


class _Server:
    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.process: subprocess.Popen[bytes] | None = None
        self.startup: dict[str, str] = {}
        self.pending = b""
        self.folder = Path(tempfile.mkdtemp(prefix="boggle-dafsa-warm-"))
        atexit.register(self.close)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None

    def usable(self, environment: dict[str, str]) -> bool:
        """Whether a command of ``environment`` may be forked: the server (started, or
        started again, from this process's environment as it is now) has its start-up variables."""
        current = _startup(dict(os.environ))
        if self.process is None or self.process.poll() is not None or self.startup != current:
            # A test that changed this process's start-up variables (and put them back, or
            # not) must not leave every later command to a fresh interpreter.
            self.stop()
            self.pending = b""
            self.startup = current
            self.process = subprocess.Popen([sys.executable, "-c", SERVER], stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        return self.startup == _startup(environment)

    def line(self, deadline: float | None) -> dict[str, int] | None:
        """The server's next answer, or None past ``deadline``."""
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        while b"\n" not in self.pending:
            left = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 4096)
            if not chunk:
                raise RuntimeError("the warm command server ended")
            self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return json.loads(line)


_SERVER = _Server()


def run_command(
    args: list[str],
    *,
    input: str | None = None,
    cwd: Path | str | None = None,
    env: dict[str, str] | None = None,
    timeout: float | None = None,
    limits: Sequence[tuple[str, int, int]] = (),
) -> subprocess.CompletedProcess[str]:
    """``boggle-dafsa ARGS`` as a process of its own, as :func:`subprocess.run` with
    ``capture_output=True, text=True`` would give it (standard input: ``input``, else
    nothing); ``limits`` are ``resource`` limits (name, soft, hard) set in the process."""
    environment = dict(os.environ if env is None else env)
    command = [*PROGRAM, *args]
    with _SERVER.lock:
        if os.environ.get(FRESH_VARIABLE) == "1" or not _SERVER.usable(environment):
            return _fresh(command, input=input, cwd=cwd, env=environment, timeout=timeout, limits=limits)
        encoding = locale.getpreferredencoding(False)
        paths = {name: _SERVER.folder / name for name in ("stdin", "stdout", "stderr")}
        paths["stdin"].write_text(input or "", encoding=encoding)
        for name in ("stdout", "stderr"):
            paths[name].write_bytes(b"")
        request = {
            "args": list(args),
            "cwd": str(cwd if cwd is not None else os.getcwd()),
            "env": environment,
            "limits": [list(limit) for limit in limits],
            "stdin": str(paths["stdin"]) if input is not None else None,
            "stdout": str(paths["stdout"]),
            "stderr": str(paths["stderr"]),
        }
        assert _SERVER.process is not None and _SERVER.process.stdin is not None
        _SERVER.process.stdin.write((json.dumps(request) + "\n").encode())
        _SERVER.process.stdin.flush()
        pid = _SERVER.line(None)["pid"]  # type: ignore[index]
        deadline = None if timeout is None else time.monotonic() + timeout
        answer = _SERVER.line(deadline)
        if answer is None:  # as subprocess.run does: killed, then TimeoutExpired
            os.kill(pid, 9)
            _SERVER.line(None)
            raise subprocess.TimeoutExpired(command, timeout or 0, _read(paths["stdout"]), _read(paths["stderr"]))
        return subprocess.CompletedProcess(command, answer["status"], _read(paths["stdout"]), _read(paths["stderr"]))


def _read(path: Path) -> str:
    # As subprocess.run(text=True) decodes: the locale's encoding, universal newlines.
    with open(path, encoding=locale.getpreferredencoding(False)) as stream:
        return stream.read()


def _fresh(
    command: list[str],
    *,
    input: str | None,
    cwd: Path | str | None,
    env: dict[str, str],
    timeout: float | None,
    limits: Sequence[tuple[str, int, int]],
) -> subprocess.CompletedProcess[str]:
    def limit() -> None:
        import resource

        for name, soft, hard in limits:
            resource.setrlimit(getattr(resource, name), (soft, hard))

    return subprocess.run(
        command,
        input=input,
        stdin=None if input is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=env,
        timeout=timeout,
        preexec_fn=limit if limits else None,
    )
