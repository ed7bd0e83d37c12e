"""Writing outputs safely: links replaced not followed, modes from the umask, and builds
interrupted at every step (in process, and killed with SIGKILL) leaving the previous
dictionary usable and no temporary file."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from boggle_dafsa.errors import BoggleError, DictionaryError
from boggle_dafsa.files import atomic
from boggle_dafsa.files.atomic import FAULT_VARIABLE, write_atomically
from boggle_dafsa.formats import FORMATS, open_path, write_dictionary
from boggle_dafsa.formats.sidecar import sidecar_path

OLD = ["CHAT", "CHIEN", "NICHE"]
NEW = ["ARBRE", "BOIS", "FEUILLE", "ZOO"]


@pytest.fixture
def umask() -> Iterator[None]:
    previous = os.umask(0o022)
    yield
    os.umask(previous)


def test_new_files_get_the_mode_the_umask_gives(tmp_path: Path, umask: None) -> None:
    os.umask(0o077)
    write_atomically(tmp_path / "private", b"x")
    assert stat.S_IMODE(os.stat(tmp_path / "private").st_mode) == 0o600
    os.umask(0o022)
    write_atomically(tmp_path / "shared", b"x")
    assert stat.S_IMODE(os.stat(tmp_path / "shared").st_mode) == 0o644


def test_a_replaced_file_keeps_its_mode(tmp_path: Path, umask: None) -> None:
    path = tmp_path / "kept"
    path.write_bytes(b"old")
    os.chmod(path, 0o640)
    write_atomically(path, b"new")
    assert path.read_bytes() == b"new" and stat.S_IMODE(os.stat(path).st_mode) == 0o640


def test_links_are_replaced_never_written_through(tmp_path: Path) -> None:
    victim = tmp_path / "victim"
    victim.write_bytes(b"precious")
    for name, points_to in (("link", victim), ("dangling", tmp_path / "nowhere"), ("to-folder", tmp_path)):
        link = tmp_path / name
        link.symlink_to(points_to)
        write_atomically(link, b"data")
        assert not link.is_symlink() and link.read_bytes() == b"data"
    assert victim.read_bytes() == b"precious" and not (tmp_path / "nowhere").exists()


def test_special_files_and_impossible_names_are_one_line_errors(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    for path in (tmp_path / "pipe", tmp_path, tmp_path / ("a" * 300), tmp_path / "file" / "below"):
        if path.name == "below":
            (tmp_path / "file").write_bytes(b"")
        with pytest.raises(DictionaryError, match="not a regular file|cannot write"):
            write_atomically(path, b"x")
    assert stat.S_ISFIFO(os.stat(tmp_path / "pipe").st_mode)
    assert [entry for entry in os.listdir(tmp_path) if entry.endswith(".tmp")] == []


def _contents(path: Path) -> list[str] | None:
    try:
        return list(open_path(path))
    except BoggleError:
        return None


def _temporaries(folder: Path) -> list[str]:
    return sorted(entry for entry in os.listdir(folder) if entry.endswith(".tmp"))


class Interrupted(BaseException):
    pass


@pytest.mark.slow
@pytest.mark.parametrize("format", FORMATS)
def test_a_build_interrupted_at_any_step_leaves_the_previous_dictionary(
    tmp_path: Path, format: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = tmp_path / f"words.{format}"
    write_dictionary(OLD, path, format)
    step = 0
    while True:
        step += 1
        calls = 0

        def interrupt(name: str) -> None:
            nonlocal calls
            calls += 1
            if calls == step:
                raise Interrupted(name)

        monkeypatch.setattr(atomic, "fault_hook", interrupt)
        try:
            write_dictionary(NEW, path, format)
        except Interrupted:
            monkeypatch.setattr(atomic, "fault_hook", None)
            # Put back, or already the new one: never neither, never a temporary file.
            assert _contents(path) in (OLD, NEW), f"after an interruption at step {step}"
            assert _temporaries(tmp_path) == []
            write_dictionary(OLD, path, format)
            continue
        break
    monkeypatch.setattr(atomic, "fault_hook", None)
    assert step >= 4 and _contents(path) == NEW


_BUILD = "from boggle_dafsa.formats import write_dictionary; import sys; write_dictionary(sys.argv[2:], sys.argv[1], sys.argv[1].rsplit('.', 1)[1])"


def _vanish(folder: Path) -> list[str]:
    # The reaper of a killed writer removes its temporary files a moment later (it may
    # still have been starting when the writer died): wait for it, generously.
    deadline = time.monotonic() + 60
    while _temporaries(folder) and time.monotonic() < deadline:
        time.sleep(0.05)
    return _temporaries(folder)


@pytest.mark.slow
@pytest.mark.parametrize("format", ["native", "dawg"])  # marisa: the same writer as dawg
def test_a_build_killed_at_any_step_leaves_a_usable_dictionary(tmp_path: Path, format: str) -> None:
    # SIGKILL cannot be caught: whatever instant it strikes, the file and its sidecar
    # must read as the old list or the new one, and the killed process's reaper removes
    # the temporary file the process could not.
    path = tmp_path / f"words.{format}"
    step = 0
    while True:
        step += 1
        write_dictionary(OLD, path, format)
        killed = subprocess.run(
            [sys.executable, "-c", _BUILD, str(path), *NEW],
            env={**os.environ, FAULT_VARIABLE: str(step)},
            capture_output=True,
            timeout=120,
        )
        if killed.returncode == 0:
            break
        assert killed.returncode == -9, killed.stderr
        assert _contents(path) in (OLD, NEW), f"after SIGKILL at step {step}"
        assert _vanish(tmp_path) == [], f"after SIGKILL at step {step}"
    assert _contents(path) == NEW and step >= 4
    if format != "native":
        assert "previous" not in sidecar_path(path).read_text()


def test_the_reaper_removes_what_a_killed_process_listed_and_nothing_else(tmp_path: Path) -> None:
    script = (
        "import os, signal, sys\n"
        "from pathlib import Path\n"
        "from boggle_dafsa.files import reaper\n"
        "folder = Path(sys.argv[1])\n"
        "for name in ('file', 'folder', 'kept', 'renamed'):\n"
        "    reaper.listed(folder / name)\n"
        "(folder / 'file').write_bytes(b'x')\n"
        "(folder / 'folder' / 'inner').mkdir(parents=True)\n"
        "(folder / 'kept').write_bytes(b'x')\n"
        "reaper.done(folder / 'kept')\n"
        "(folder / 'renamed').write_bytes(b'x')\n"
        "os.replace(folder / 'renamed', folder / 'target')\n"  # killed before done(): harmless
        "os.kill(os.getpid(), signal.SIGKILL)\n"
    )
    killed = subprocess.run([sys.executable, "-c", script, str(tmp_path)], capture_output=True, timeout=120)
    assert killed.returncode == -9, killed.stderr
    deadline = time.monotonic() + 60
    while {"file", "folder"} & set(os.listdir(tmp_path)) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert sorted(os.listdir(tmp_path)) == ["kept", "target"]


@pytest.mark.slow
def test_without_a_reaper_the_next_write_removes_a_dead_writers_temporary(tmp_path: Path) -> None:
    # Where no reaper can be started, a killed writer's temporary file stays until the
    # next write to the same path, which removes it (its process is gone).
    path = tmp_path / "words.native"
    write_dictionary(OLD, path)
    script = "import boggle_dafsa.files.reaper as r; r._start = lambda: None\n" + _BUILD.replace("; ", "\n")
    killed = subprocess.run(
        [sys.executable, "-c", script, str(path), *NEW], env={**os.environ, FAULT_VARIABLE: "1"}, capture_output=True, timeout=120
    )
    assert killed.returncode == -9, killed.stderr
    time.sleep(0.5)
    left = _temporaries(tmp_path)
    assert len(left) == 1 and left[0].startswith(".words.native.")
    write_dictionary(NEW, path)
    assert _temporaries(tmp_path) == [] and _contents(path) == NEW
