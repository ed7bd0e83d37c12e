"""Build of the optional C extensions (everything else is declared in pyproject.toml).

The extensions only make things faster: each has a pure-Python twin. When one cannot be
compiled (no compiler, no Python headers), the build warns and the install goes on
without it, as markupsafe's and simplejson's speedups do. ``BOGGLE_DAFSA_NO_EXTENSIONS=1``
skips them altogether (CI uses it to show the no-compiler path).

To add an extension: append an ``Extension`` to ``EXTENSIONS``; it gets the same flags
and the same optional treatment.
"""

from __future__ import annotations

import os
import sys
import tempfile

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The one C definition of the native file format, included by every extension below.
FORMAT_HEADER = "src/boggle_dafsa/automaton/_format.h"

EXTENSIONS = [
    # The compiled twin of src/boggle_dafsa/solver/python.py (its searches in _native_search.h).
    Extension(
        "boggle_dafsa.solver._native",
        ["src/boggle_dafsa/solver/_native.c"],
        depends=["src/boggle_dafsa/solver/_native_search.h", "src/boggle_dafsa/solver/_native_hood.h",
                 "src/boggle_dafsa/solver/_native_hood_run.h", FORMAT_HEADER],
    ),
    # The compiled twin of the streaming builder (src/boggle_dafsa/automaton/stream.py).
    Extension(
        "boggle_dafsa.automaton._builder",
        ["src/boggle_dafsa/automaton/_builder.c"],
        depends=["src/boggle_dafsa/automaton/_compact.h", FORMAT_HEADER],
    ),
    # The compiled twin of the native query walk (src/boggle_dafsa/query/walk.py's _walk_native).
    Extension("boggle_dafsa.query._walk", ["src/boggle_dafsa/query/_walk.c"], depends=[FORMAT_HEADER]),
    # The census of a native file's cells (twin: DictionaryBase._check_below in dictionary.py).
    Extension("boggle_dafsa.automaton._census", ["src/boggle_dafsa/automaton/_census.c"], depends=[FORMAT_HEADER]),
    # The compiled twin of the prover's class kernel (src/boggle_dafsa/search/prove.py's prove_class_python).
    Extension("boggle_dafsa.search._prove", ["src/boggle_dafsa/search/_prove.c"], depends=[FORMAT_HEADER]),
]

DISABLE_VARIABLE = "BOGGLE_DAFSA_NO_EXTENSIONS"


class OptionalBuildExt(build_ext):
    """build_ext that warns instead of failing, with optimization flags the compiler accepts."""

    def finalize_options(self) -> None:
        super().finalize_options()
        # pip passes no -j: the extensions compile at once, one a core (the install is on
        # the way to everything else, CI's suite included).
        if not self.parallel:
            self.parallel = os.cpu_count() or 1

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # no compiler at all (DistutilsPlatformError and kin)
            self._warn("the C extensions", error)

    def build_extension(self, extension: Extension) -> None:
        if self.compiler.compiler_type == "unix":
            # No -mpopcnt (or -march): a build must run on any CPU of its architecture (a
            # wheel is built on one machine and run on others). _native.c carries a
            # second copy of its searches for CPUs with popcnt, chosen at import.
            wanted = ["-O3", "-std=c99", "-fno-strict-aliasing"]
            extension.extra_compile_args = [flag for flag in wanted if self._accepts(flag)]
        try:
            super().build_extension(extension)
        except Exception as error:  # CompileError, LinkError, missing headers
            self._warn(extension.name, error)

    def _accepts(self, flag: str) -> bool:
        # A flag the compiler refuses would fail the whole build: try it on an empty file.
        with tempfile.TemporaryDirectory() as folder:
            source = os.path.join(folder, "flag.c")
            with open(source, "w") as stream:
                stream.write("int main(void) { return 0; }\n")
            try:
                self.compiler.compile([source], output_dir=folder, extra_postargs=[flag])
            except Exception:
                return False
        return True

    @staticmethod
    def _warn(what: str, error: BaseException) -> None:
        print(
            f"WARNING: {what} could not be compiled ({error}); boggle-dafsa will run on its "
            "pure-Python kernels, which give the same results more slowly.",
            file=sys.stderr,
        )


disabled = os.environ.get(DISABLE_VARIABLE, "").strip() not in {"", "0"}
setup(
    ext_modules=[] if disabled else EXTENSIONS,
    cmdclass={"build_ext": OptionalBuildExt},
)
