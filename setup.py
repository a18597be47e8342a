"""Builds the compiled loops of the sweeps, the poker operators, implicit sampling CFR and
outcome sampling's compiled pass and the 52-card showdowns (optional: without a C
compiler the numpy code runs, and the implicit blueprint solver says it needs the build)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("subgame.tree._kernels", ["src/subgame/tree/_kernels.c", "src/subgame/tree/_passes.c"], extra_compile_args=["-O3", "-pthread"],
                           extra_link_args=["-pthread"], optional=True),
                   Extension("subgame.blueprint._mccfr", ["src/subgame/blueprint/_mccfr.c"], extra_compile_args=["-O3"],
                             optional=True),
                   Extension("subgame.games.poker._showdown", ["src/subgame/games/poker/_showdown.c"],
                             extra_compile_args=["-O3"], optional=True),
                   Extension("subgame.solve._sampling", ["src/subgame/solve/_sampling.c"],
                             extra_compile_args=["-O3", "-ffp-contract=off"], optional=True)])
