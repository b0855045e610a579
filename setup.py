"""Build the compiled native core; all the metadata is in pyproject.toml.

The extension is optional: when it fails to build, ``pip install`` still succeeds and
:mod:`sudokulab.native` falls back to the Python reference (with a warning).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sudokulab.native._core",
            ["native/_core.c"],
            extra_compile_args=["-O3", "-Wall", "-Wextra"],
            optional=True,
        )
    ]
)
