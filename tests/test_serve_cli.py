"""`boggle-dafsa serve` as a user runs it: a real uvicorn on 127.0.0.1, stopped by Ctrl-C."""

from __future__ import annotations

import json
import signal
import socket
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

pytest.importorskip("fastapi", reason="the [web] extra is not installed (pip install '.[web]')")
pytest.importorskip("uvicorn", reason="the [web] extra is not installed (pip install '.[web]')")

from conftest import run_cli

from helpers.harness import live_server


@pytest.mark.slow
def test_serve_answers_on_the_address_it_prints_and_stops_on_ctrl_c() -> None:
    command = [sys.executable, "-c", "from boggle_dafsa.cli import main; main()", "serve", "--port", "0", "-d", "en"]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        assert process.stdout is not None
        line = process.stdout.readline()
        assert line.startswith("boggle-dafsa: serving on http://127.0.0.1:"), line
        url = line.split()[3]
        with urllib.request.urlopen(url + "api/dictionaries", timeout=30) as response:
            listed = json.load(response)
        assert [entry["name"] for entry in listed if entry["default"]] == ["en"]
        with urllib.request.urlopen(url, timeout=30) as response:
            assert b"solve.js" in response.read()
    finally:
        process.send_signal(signal.SIGINT)
        _out, err = process.communicate(timeout=30)
    assert process.returncode == 0
    assert "Traceback" not in err and "stopped" in err


@pytest.mark.slow
def test_the_live_server_helper_serves_the_api() -> None:
    with live_server() as url, urllib.request.urlopen(url + "api/solve?grid=IDXT/MHEI/ERVN/TLLU", timeout=60) as response:
        assert json.load(response)["totals"] == {"words": 71, "points": 99}


@pytest.mark.slow
def test_a_bad_dictionary_is_one_line_and_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.dafsa"
    bad.write_bytes(b"\x00\x01 neither a dictionary nor a word list")
    result = run_cli("serve", "--port", "0", "-d", str(bad))
    assert result.returncode == 2
    assert result.stderr.startswith("boggle-dafsa: ") and result.stderr.count("\n") == 1, result.stderr
    result = run_cli("serve", "--port", "0", "-d", str(tmp_path / "missing.dafsa"))
    assert result.returncode == 2 and "missing.dafsa" in result.stderr and result.stderr.count("\n") == 1


@pytest.mark.slow
def test_a_busy_port_is_one_line_and_exit_2() -> None:
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        result = run_cli("serve", "--port", str(port))
    assert result.returncode == 2
    assert result.stderr.startswith(f"boggle-dafsa: cannot listen on 127.0.0.1:{port}") and result.stderr.count("\n") == 1
    result = run_cli("serve", "--port", "70000")
    assert result.returncode == 2 and "between 0 and 65535" in result.stderr
    result = run_cli("serve", "--host", "no such host.invalid", "--port", "0")
    assert result.returncode == 2 and result.stderr.count("\n") == 1 and "cannot listen" in result.stderr


@pytest.mark.slow
def test_the_command_line_never_imports_the_web_framework_and_says_when_it_is_missing() -> None:
    code = "import sys; from boggle_dafsa.cli import app; print(sorted(m for m in ('fastapi', 'uvicorn', 'starlette') if m in sys.modules))"
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert result.stdout.strip() == "[]"
    # Without the extra (fastapi made unimportable), serve says what to install, in one line.
    code = "import sys; sys.modules['fastapi'] = None; sys.argv = ['boggle-dafsa', 'serve']; from boggle_dafsa.cli import main; main()"
    result = subprocess.run([sys.executable, "-c", code], check=False, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.count("\n") == 1 and "[web]" in result.stderr and "fastapi" in result.stderr
