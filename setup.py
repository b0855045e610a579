"""Build the compiled native core; all the metadata is in pyproject.toml.

The extension is optional: when it fails to build, ``pip install`` still succeeds and
:mod:`sudokulab.native` falls back to the Python reference (with a warning).

The core is compiled for the machine that builds it (``-march=native``, as tdoku and other
fast solvers are built) when the compiler takes that flag: the 9x9 solver's bit-parallel
steps then use the widest vector instructions the processor has (on a processor with
AVX-512 the hardest sets take about a sixth less time; docs/results.md). Set
``SUDOKULAB_PORTABLE=1`` to build a core that runs on any x86-64 (or other) processor, for
a wheel built on one machine and installed on others.
"""

import os
import tempfile
import tomllib

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


def package_dir(package: str) -> str:
    """The source folder of ``package``, as ``[tool.setuptools.package-dir]`` in
    pyproject.toml states it (the one place it is stated)."""
    with open("pyproject.toml", "rb") as f:
        return tomllib.load(f)["tool"]["setuptools"]["package-dir"][package]


#: The C core's folder: the sources of sudokulab.native.
NATIVE = package_dir("sudokulab.native")
#: The flag that compiles for the building machine, and the variable that turns it off.
NATIVE_FLAG = "-march=native"
PORTABLE = "SUDOKULAB_PORTABLE"


def _takes(compiler, flag: str) -> bool:
    """Whether ``compiler`` compiles a small C file with ``flag`` (some compilers and
    processors have no ``-march=native``)."""
    with tempfile.TemporaryDirectory() as folder:
        source = os.path.join(folder, "probe.c")
        with open(source, "w") as f:
            f.write("int main(void) { return 0; }\n")
        try:
            compiler.compile([source], output_dir=folder, extra_postargs=[flag])
        except Exception:  # a CompileError, or the compiler missing: the portable build
            return False
    return True


class BuildExt(build_ext):
    """build_ext that adds ``-march=native`` unless SUDOKULAB_PORTABLE is set (to 1, yes
    or true) or the compiler refuses it."""

    def build_extensions(self):
        portable = os.environ.get(PORTABLE, "").strip().lower() in ("1", "yes", "true")
        if not portable and _takes(self.compiler, NATIVE_FLAG):
            for ext in self.extensions:
                ext.extra_compile_args.append(NATIVE_FLAG)
        super().build_extensions()


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=[
        Extension(
            "sudokulab.native._core",
            # by concern: the module, the shape tables, the general engine, the 9x9 solver,
            # exact cover (the dlx backend)
            [f"{NATIVE}/{name}.c" for name in ("_core", "tables", "engine", "board9", "cover")],
            depends=[f"{NATIVE}/core.h"],
            extra_compile_args=["-O3", "-Wall", "-Wextra", "-fvisibility=hidden"],
            optional=True,
        ),
        Extension(
            # the DRAT checker, compiled (sudokulab.certify.drat falls back to its Python)
            "sudokulab.certify._rup",
            [f"{package_dir('sudokulab')}/certify/_rup.c"],
            extra_compile_args=["-O2", "-Wall", "-Wextra", "-fvisibility=hidden"],
            optional=True,
        ),
    ],
)
