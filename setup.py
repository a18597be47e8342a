"""Builds the compiled loops of the sweeps, the poker operators, implicit sampling CFR and
outcome sampling's compiled pass and the 52-card showdowns (optional: without a C
compiler the numpy code runs, and the implicit blueprint solver says it needs the build)."""

import os

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext


class ReplacingBuildExt(build_ext):
    """Puts each library built in place (``--inplace``, ``pip install -e``) by a rename, never by writing over the
    old file: a process running from the old library keeps its code (a copy over it changes that code under it)."""

    def copy_file(self, infile: str, outfile: str, *args: object, **kwargs: object) -> tuple[str, bool]:
        staged = f"{outfile}.{os.getpid()}.tmp"
        result = super().copy_file(infile, staged, *args, **kwargs)
        if os.path.exists(staged):
            os.replace(staged, outfile)
        return outfile, result[1]


setup(
    cmdclass={"build_ext": ReplacingBuildExt},
    ext_modules=[
        Extension("subgame.tree._kernels", ["src/subgame/tree/_kernels.c", "src/subgame/tree/_passes.c",
                                               "src/subgame/tree/_passes_single.c", "src/subgame/tree/_passes_avx2.c",
                                               "src/subgame/tree/_passes_single_avx2.c", "src/subgame/tree/_pool.c",
                                               "src/subgame/tree/_iterations.c"],
                  depends=["src/subgame/tree/_rows.h"],
                  extra_compile_args=["-O3", "-pthread", "-ffp-contract=off"], extra_link_args=["-pthread"], optional=True),
        Extension("subgame.blueprint._mccfr", ["src/subgame/blueprint/_mccfr.c"], extra_compile_args=["-O3"], optional=True),
        Extension("subgame.games.poker._showdown", ["src/subgame/games/poker/_showdown.c"], extra_compile_args=["-O3"],
                  optional=True),
        Extension("subgame.solve._sampling", ["src/subgame/solve/_sampling.c"], extra_compile_args=["-O3", "-ffp-contract=off"],
                  optional=True),
    ],
)
