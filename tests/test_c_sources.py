"""The C format header as a compiler other than gcc or clang reads it: the portable branches compile and agree."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

import boggle_dafsa

PACKAGE = Path(boggle_dafsa.__file__).resolve().parent
HEADER = PACKAGE / "automaton" / "_format.h"
COMPILER = shutil.which("cc") or shutil.which("gcc")

PROGRAM = """
#include <stdio.h>
#include "_format.h"
int main(void) {
    unsigned long long sum = 0;
    for (uint32_t x = 1; x < 70000; x += 7) sum += popcount32(x) * 64u + lowest_bit32(x);
    printf("%llu\\n", sum);
    return 0;
}
"""


def _run(folder: Path, *flags: str) -> str:
    source = folder / "probe.c"
    source.write_text(PROGRAM)
    binary = folder / ("probe" + "".join(flags).replace("-", "_"))
    subprocess.run(
        [COMPILER, "-std=c99", "-Wall", "-Werror", *flags, "-I", str(HEADER.parent), "-o", str(binary), str(source)],
        check=True,
        capture_output=True,
        text=True,
    )
    return subprocess.run([str(binary)], check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(COMPILER is None or not HEADER.exists(), reason="no C compiler, or no source tree in this install")
def test_the_format_header_compiles_without_compiler_builtins(tmp_path: Path) -> None:
    # BOGGLE_DAFSA_PORTABLE_BITS takes the branches of a compiler without gcc's builtins.
    expected = sum(bin(x).count("1") * 64 + ((x & -x).bit_length() - 1) for x in range(1, 70000, 7))
    assert _run(tmp_path) == f"{expected}\n"
    assert _run(tmp_path, "-DBOGGLE_DAFSA_PORTABLE_BITS") == f"{expected}\n"


#: Headers that only POSIX systems have: an extension that includes one unguarded does not
#: build with MSVC, where the Python twin would have to run.
POSIX_ONLY = ("unistd.h", "sys/mman.h", "sys/time.h", "pthread.h", "dlfcn.h", "strings.h")


def _unguarded_posix_includes(text: str) -> list[str]:
    open_conditions: list[str] = []
    found = []
    for line in text.splitlines():
        directive = line.strip().replace("# ", "#")
        if directive.startswith(("#if", "#ifdef", "#ifndef")):
            open_conditions.append(directive)
        elif directive.startswith("#endif") and open_conditions:
            open_conditions.pop()
        elif directive.startswith("#include <") and directive[len("#include <") :].split(">")[0] in POSIX_ONLY:
            if not any(
                word in condition for condition in open_conditions for word in ("_WIN32", "unix", "linux", "APPLE", "POSIX")
            ):
                found.append(directive)
    return found


def test_the_guard_finds_what_it_should() -> None:
    assert _unguarded_posix_includes("#include <unistd.h>\n") == ["#include <unistd.h>"]
    assert _unguarded_posix_includes("#ifndef _WIN32\n#include <unistd.h>\n#endif\n") == []
    assert _unguarded_posix_includes("#if defined(__unix__)\n#  include <sys/mman.h>\n#endif\n") == []


def test_no_c_source_includes_a_posix_only_header_unguarded() -> None:
    # The clone's sources (a wheel need not hold the .c files), else the installed package's.
    tree = Path(__file__).resolve().parent.parent / "src" / "boggle_dafsa"
    sources = tree if tree.is_dir() else PACKAGE
    paths = sorted([*sources.rglob("*.c"), *sources.rglob("*.h")])
    if not any(path.suffix == ".c" for path in paths):
        pytest.skip("no C source here")
    found = {
        path.relative_to(sources).as_posix(): unguarded
        for path in paths
        if (unguarded := _unguarded_posix_includes(path.read_text(encoding="utf-8")))
    }
    assert found == {}
