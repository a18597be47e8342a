"""Decomposition: CFR-D and re-solving from stored root values (Burch, Johanson & Bowling 2014).

* :func:`solve_cfr_d` / :class:`CFRDSolver` — CFR-D: trunk CFR whose leaf operator solves
  every subgame below the trunk each iteration; keeps only the trunk and the average root
  values ("Generating a Trunk Strategy using CFR-D", Theorem 2).
* :func:`stored_value_problem` / :func:`reconstruct` — re-solving subgames at run time
  from those values with the re-solving gadget ("Subgame Strategy Re-Solving", Fig. 2;
  appendix Theorem 3), by the one re-solver :func:`subgame.resolving.resolve_subgame`.
* :func:`save_cfr_d` / :func:`load_cfr_d` — the solution as a file.
* :class:`ProcessExecutor` / :class:`RayExecutor` — independent subgame solves in parallel
  (Ray: on a cluster, a task whose worker dies run again; peak memory per worker).
"""

from ..parallel import (
    Executor,
    ProcessExecutor,
    RayExecutor,
    SerialExecutor,
    WorkerMemory,
    make_executor,
    peak_rss_bytes,
)
from .cfr_d import (
    CFRDConfig,
    CFRDSolution,
    CFRDSolver,
    ChunkValues,
    SubgameSolveOperator,
    is_cfr_d_file,
    load_cfr_d,
    save_cfr_d,
    solve_cfr_d,
    solve_chunk,
)
from .reconstruct import (
    Reconstruction,
    ResolveBound,
    chunk_at,
    reconstruct,
    stored_value_exploitability,
    stored_value_problem,
    theorem3_bound,
)
from .split import Chunk, Decomposition, StructureCache, TrunkSplit, compile_chunk, whole_tree_bytes

__all__ = [
    "CFRDConfig",
    "CFRDSolution",
    "CFRDSolver",
    "Chunk",
    "chunk_at",
    "ChunkValues",
    "Decomposition",
    "Executor",
    "ProcessExecutor",
    "RayExecutor",
    "Reconstruction",
    "ResolveBound",
    "SerialExecutor",
    "StructureCache",
    "SubgameSolveOperator",
    "TrunkSplit",
    "WorkerMemory",
    "compile_chunk",
    "is_cfr_d_file",
    "load_cfr_d",
    "make_executor",
    "peak_rss_bytes",
    "reconstruct",
    "save_cfr_d",
    "solve_cfr_d",
    "solve_chunk",
    "stored_value_exploitability",
    "stored_value_problem",
    "theorem3_bound",
    "whole_tree_bytes",
]
