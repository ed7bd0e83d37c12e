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
