"""Build the compiled native core; all the metadata is in pyproject.toml.

The extension is optional: when it fails to build, ``pip install`` still succeeds and
:mod:`sudokulab.native` falls back to the Python reference (with a warning).
"""

from setuptools import Extension, setup

setup(
    ext_modules=[
        Extension(
            "sudokulab.native._core",
            # by concern: the module, the shape tables, the general engine, the 9x9 solver,
            # exact cover (the dlx backend)
            [
                "native/_core.c",
                "native/tables.c",
                "native/engine.c",
                "native/board9.c",
                "native/cover.c",
            ],
            depends=["native/core.h"],
            extra_compile_args=["-O3", "-Wall", "-Wextra", "-fvisibility=hidden"],
            optional=True,
        )
    ]
)
