"""Builds the compiled loops of the sweeps and poker operators (optional: without a C compiler the numpy code runs)."""

from setuptools import Extension, setup

setup(ext_modules=[Extension("subgame.tree._kernels", ["src/subgame/tree/_kernels.c"], extra_compile_args=["-O3", "-pthread"],
                           extra_link_args=["-pthread"], optional=True)])
