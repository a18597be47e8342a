"""Agents named on the command line.

=============================  =================================================================
spec                           agent
=============================  =================================================================
``random``, ``call``           uniform random; always check/call
``FILE``                       a strategy file of the game (``subgame solve``); a file of a bet
                               abstraction of a no-limit game (the game with fewer
                               ``bet_fractions``) plays with pseudo-harmonic translation
``cfr-d:FILE[:N]``             continual re-solving from a CFR-D file (``solve --algo cfr-d``),
                               N CFR+ iterations per subgame (default 200)
``resolve:FILE:METHOD[:N]``    a blueprint file re-solved at each betting round with METHOD
                               (``resolve``, ``maxmargin``, ``reach-maxmargin``, ...), N iterations
``search:FILE[:N]``            the depth-limited search agent on a blueprint file (K = 4 bias
                               continuations, Modicum's CFR schedule), N iterations per solve
``search:BP[:BUCKETS][:N]``    a no-limit blueprint of ``subgame blueprint`` searched on the river
                               (:mod:`.hunl_search`, no compiled tree needed): N CFR+ iterations
                               per solve (default 200), or ``Ts`` for T seconds (``2s``); ``:kK``
                               before the budget searches the turn too, to its round's end with K
                               continuations at the leaves (``:k4c3``: 3 sampled river cards;
                               ``:k4s2``: 2 of the river cards valued per iteration, a fresh sample;
                               ``:k4c2f3``: the flop too, 2 turn cards at its leaves, 3 river
                               cards below each; ``:k4c2f3p``: an off-tree preflop size re-solves
                               the whole preflop, App. A);
                               ``:resolve`` or ``:maxmargin`` before the budget: safe river roots
``cdbr:MODEL[:DEPTH]``         continual depth-limited best response to an opponent model file,
                               DEPTH moves of look-ahead (default 1), solved exactly
``cdbr:BP[:BUCKETS][:DEPTH]``  the same against a blueprint of ``subgame blueprint`` as ``blueprint:BP``
                               plays it (no compiled tree needed, :mod:`.lbr`): fold, call, pot and
                               all-in, DEPTH moves of look-ahead, LBR's check/call-down value at the
                               limit, every round (preflop too)
``cdrnr:MODEL:P[:DEPTH]``      continual depth-limited restricted Nash response (full gadget)
                               with weight P in [0, 1] of the model
``blueprint:FILE[:BUCKETS]``   a no-limit blueprint of ``subgame blueprint`` (no compiled tree needed),
                               off-tree bets by pseudo-harmonic translation; BUCKETS: its bucket file
``lookup:FILE[:BUCKETS]``      the same agent under the name of the depth-limited paper's opponents, a
                               lookup-table bot (a blueprint with translation, no search): it stands in
                               for Slumbot and Baby Tartanian8, which are not available
``lbr:BP[:BUCKETS]``           local best response (Lisý & Bowling 2017, :mod:`.lbr`) to the blueprint
                               BP as ``blueprint:BP`` plays it (no compiled tree needed): fold, call,
                               0.5 / 1 pot and all-in valued against the blueprint's Bayes range,
                               check/call preflop
``lbr:search:BP[...]``         the same against the search agent ``search:BP[...]``, its model a twin of
                               the agent (:mod:`.search_model`: its Bayes ranges, its solves' rows)
=============================  =================================================================
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from ..blueprint.blueprint_file import Blueprint
from ..blueprint.deal_abstraction import load_deal_abstraction
from ..decompose.cfr_d import is_cfr_d_file, load_cfr_d
from ..errors import SubgameError
from ..games import load_game
from ..games.base import Game
from ..games.poker.game import PokerGame
from ..solve.driver import Budget
from ..strategy import Strategy
from ..tree.compile import compile_game
from ..tree.public_tree import PublicTree
from .acpc.same_game import adopt_strategy
from .base import Agent
from .baselines import CallAgent, RandomAgent
from .beliefs import BlueprintModel
from .blueprint import BlueprintAgent
from .counter import CounterAgent
from .hunl_search import ROOTS, HunlSearchAgent, HunlSearchConfig
from .lbr import FCPA, LBRConfig, LocalBestResponse
from .resolving import ResolvingAgent, blueprint_source, cfr_d_source
from .search import SearchAgent, SearchConfig
from .search_model import SearchModel
from .strategy import StrategyAgent
from .translation import TranslationAgent

BASELINES: dict[str, type[RandomAgent] | type[CallAgent]] = {"random": RandomAgent, "call": CallAgent}
DEFAULT_RESOLVE_ITERATIONS = 200
DEFAULT_COUNTER_DEPTH = 1


@dataclass(frozen=True)
class AgentKind:
    """A kind of agent spec ``KIND:REST``: how it is written and how its agent is made from ``REST``."""

    syntax: str  #: e.g. ``cfr-d:FILE[:N]``
    make: Callable[[str, str, PublicTree, Game | None], Agent]  #: (rest, whole spec, tree, game) -> the agent


def _cfr_d(rest: str, spec: str, tree: PublicTree, game: Game | None) -> Agent:
    file, iterations = _iterations(rest, spec)
    solution = load_cfr_d(_existing(file, spec), _needs(game, spec))
    if solution.trunk.game_id != tree.game_id:
        raise SubgameError(f"agent {spec!r}: the CFR-D file is of game {solution.trunk.game_id!r}, the match is {tree.game_id!r}")
    return ResolvingAgent(cfr_d_source(solution), Budget(iterations=iterations), name=f"cfr-d:{Path(file).stem}")


def _resolve(rest: str, spec: str, tree: PublicTree, game: Game | None) -> Agent:
    head, iterations = _iterations(rest, spec)
    file, sep, method = head.rpartition(":")
    if not sep or not file:
        raise SubgameError(f"agent {spec!r}: write resolve:FILE:METHOD[:ITERATIONS], e.g. resolve:leduc.npz:reach-maxmargin")
    blueprint = Strategy.load(_existing(file, spec), tree)
    source = blueprint_source(_needs(game, spec), tree, blueprint, method)
    return ResolvingAgent(source, Budget(iterations=iterations), name=f"{method}:{Path(file).stem}")


def _search(rest: str, spec: str, tree: PublicTree, game: Game | None) -> Agent:
    if is_blueprint_file(rest.split(":")[0]):
        return hunl_search_agent(spec, _needs(game, spec))
    file, iterations = _iterations(rest, spec)
    blueprint = Strategy.load(_existing(file, spec), tree)
    config = SearchConfig(budget=Budget(iterations=iterations))
    return SearchAgent(_needs(game, spec), tree, blueprint, config, name=f"search:{Path(file).stem}")


#: Every kind of ``KIND:REST`` spec (besides the baselines and a bare strategy file), from which load_agent
#: dispatches and :data:`SPEC_HELP` is written.
AGENT_KINDS: dict[str, AgentKind] = {
    "cfr-d": AgentKind("cfr-d:FILE[:N]", _cfr_d),
    "resolve": AgentKind("resolve:FILE:METHOD[:N]", _resolve),
    "search": AgentKind("search:FILE[:BUCKETS][:kK[cR][sR][f[R]][p[B]]][:rN][:ROOT][:N|Ts]", _search),  # BUCKETS, kK, rN, Ts: a blueprint file only
    "cdbr": AgentKind("cdbr:MODEL[:BUCKETS][:DEPTH]", lambda rest, spec, tree, game: (  # BUCKETS: a blueprint only
        lbr_agent(spec, _needs(game, spec)) if is_blueprint_file(rest.split(":")[0]) else _counter("cdbr", rest, spec, tree))),
    "cdrnr": AgentKind("cdrnr:MODEL:P[:DEPTH]", lambda rest, spec, tree, game: _counter("cdrnr", rest, spec, tree)),
    "blueprint": AgentKind("blueprint:FILE[:BUCKETS]", lambda rest, spec, tree, game: blueprint_agent(spec, _needs(game, spec))),
    "lookup": AgentKind("lookup:FILE[:BUCKETS]", lambda rest, spec, tree, game: blueprint_agent(spec, _needs(game, spec))),
    "lbr": AgentKind("lbr:BP[:BUCKETS] or lbr:search:BP[...]", lambda rest, spec, tree, game: lbr_agent(spec, _needs(game, spec))),
}
SPEC_HELP = f"{', '.join(BASELINES)}, a strategy FILE, {', '.join(k.syntax for k in AGENT_KINDS.values())}"


def load_agent(spec: str, tree: PublicTree, game: Game | None = None) -> Agent:
    """The agent a spec names (see the module docstring), for the game compiled as ``tree``.

    Args:
        spec: the agent's spec.
        tree: the game's compiled tree (files are checked against it).
        game: the game itself; needed by ``cfr-d:``, ``resolve:`` and translated files.

    Raises:
        SubgameError: an unknown name, a missing file, or a file of another game.
    """
    if spec in BASELINES:
        return BASELINES[spec]()
    kind, _, rest = spec.partition(":")
    if kind in AGENT_KINDS and rest:
        return AGENT_KINDS[kind].make(rest, spec, tree, game)
    path = _existing(spec, spec)
    if is_cfr_d_file(path):
        raise SubgameError(f"{spec} is a CFR-D file: play it as cfr-d:{spec}")
    strategy = Strategy.load(path)
    if strategy.game_id == tree.game_id:
        return StrategyAgent(tree, strategy.check(tree), name=path.stem)
    if isinstance(game, PokerGame) and strategy.meta.game and game.spec.betting == "nolimit":
        abstract = load_game(strategy.meta.game, **(strategy.meta.params or {}))
        if isinstance(abstract, PokerGame):
            return TranslationAgent(game, tree, abstract, compile_game(abstract), strategy, name=path.stem)
    adopted = adopt_strategy(path, tree)  # the same game under another name (a built-in and its ACPC file)
    if adopted is not None:
        return StrategyAgent(tree, adopted, name=path.stem)
    raise SubgameError(f"{spec}: the strategy is of game {strategy.game_id!r}, the match is {tree.game_id!r}; "
                       "give a file of this game (or of a bet abstraction of a no-limit game)")


def treeless_agent(spec: str, game: Game, seconds: float | None = None) -> Agent | None:
    """The agent of ``spec`` if it needs no compiled tree (a baseline, ``blueprint:``, ``lookup:``, ``lbr:``,
    ``cdbr:`` or ``search:`` on a blueprint file), else ``None``; ``seconds``: see :func:`hunl_search_agent`."""
    if spec in BASELINES:
        return BASELINES[spec]()
    kind, _, rest = spec.partition(":")
    if kind in ("blueprint", "lookup") and rest:
        return blueprint_agent(spec, game)
    if kind == "lbr" and rest or kind == "cdbr" and is_blueprint_file(rest.split(":")[0]):
        return lbr_agent(spec, game)
    if kind == "search" and is_blueprint_file(rest.split(":")[0]):
        return hunl_search_agent(spec, game, seconds)
    return None


def blueprint_agent(spec: str, game: Game) -> Agent:
    """``blueprint:FILE[:BUCKETS]`` (or ``lookup:``): needs the game only, never its tree (HUNL)."""
    kind, _, rest = spec.partition(":")
    file, _, buckets = rest.partition(":")
    if not isinstance(game, PokerGame):
        raise SubgameError(f"agent {spec!r}: a blueprint plays a no-limit poker game")
    blueprint = Blueprint.load(_existing(file, spec))
    abstraction = load_deal_abstraction(buckets, game.spec) if buckets else blueprint.deal_abstraction()
    return BlueprintAgent(game, blueprint, abstraction, name=f"{kind}:{Path(file).stem}")


def lbr_agent(spec: str, game: Game) -> Agent:
    """``lbr:BP[:BUCKETS]`` or ``cdbr:BP[:BUCKETS][:DEPTH]``: local best response, or CDBR with fold, call, pot and
    all-in, to a blueprint as the blueprint agent plays it; needs the game only."""
    kind, _, rest = spec.partition(":")
    if kind == "lbr" and rest.startswith("search:"):  # hunl_search_agent refuses any game but no-limit poker
        agent = hunl_search_agent(rest, game)
        assert isinstance(agent, HunlSearchAgent) and isinstance(game, PokerGame)
        return LocalBestResponse(game, SearchModel(agent), name=f"lbr:{agent.name}")
    parts = rest.split(":")
    config = LBRConfig()
    if kind == "cdbr":
        depth = DEFAULT_COUNTER_DEPTH
        if len(parts) > 1 and parts[-1].lstrip("-").isdigit():
            depth = int(parts.pop())
        try:
            config = LBRConfig(sizes=FCPA, call_preflop=False, depth=depth)
        except SubgameError as e:
            raise type(e)(f"agent {spec!r}: {e}") from None
    if len(parts) > 2:
        raise SubgameError(f"agent {spec!r}: write {'lbr:BP[:BUCKETS]' if kind == 'lbr' else 'cdbr:BP[:BUCKETS][:DEPTH]'}")
    file, buckets = parts[0], parts[1] if len(parts) > 1 else ""
    if not isinstance(game, PokerGame) or game.spec.betting != "nolimit":
        raise SubgameError(f"agent {spec!r}: {kind.upper()} against a blueprint plays a no-limit poker game")
    blueprint = Blueprint.load(_existing(file, spec))
    try:
        abstraction = load_deal_abstraction(buckets, game.spec) if buckets else blueprint.deal_abstraction()
        model = BlueprintModel(game, blueprint, abstraction, name=f"blueprint:{Path(file).stem}")
    except SubgameError as e:
        raise type(e)(f"agent {spec!r}: {e}") from None
    name = f"lbr:{Path(file).stem}" if kind == "lbr" else f"cdbr{config.depth}:{Path(file).stem}"
    return LocalBestResponse(game, model, config, name=name)


def hunl_search_agent(spec: str, game: Game, seconds: float | None = None) -> Agent:
    """``search:BP[:BUCKETS][:kK[cR][sR][f[R]][p[B]]][:rN][:ROOT][:N|Ts]``: the search agent on an implicit blueprint; needs the game only (HUNL).

    ``kK``: the turn too, solved to the end of its round with K continuations at its leaves (1 to
    4; ``cR``: R sampled cards at the leaves instead of all; ``sR``: R of the leaves' cards valued
    per CFR iteration, a fresh sample each; ``f[R]``: the flop too, to its round's end, its leaves
    valued by the blueprint's turn and river, R sampled river cards per turn card or all; ``p[B]``: an off-tree preflop
    size re-solves the whole preflop, its leaves valued over B sampled boards, 256 by default:
    :attr:`HunlSearchConfig.preflop`). ``rN``: at most N bets and raises a
    round in the subgames (:attr:`HunlSearchConfig.raise_cap`). ``ROOT``: ``unsafe`` (the default), ``resolve`` or
    ``maxmargin`` (:attr:`HunlSearchConfig.root`). ``seconds``: the budget of every
    solve where the spec names none (``--seconds-per-decision``); a budget in the spec wins.
    """
    if seconds is not None and not seconds > 0:
        raise SubgameError(f"the seconds per decision must be positive, got {seconds}")
    parts = spec.partition(":")[2].split(":")
    budget = Budget(iterations=DEFAULT_RESOLVE_ITERATIONS) if seconds is None else Budget(seconds=seconds)
    if len(parts) > 1 and re.fullmatch(r"\d+|\d+(\.\d*)?s", parts[-1]):
        text = parts.pop()
        budget = Budget(seconds=float(text[:-1])) if text.endswith("s") else Budget(iterations=int(text))
    config = HunlSearchConfig(budget=budget)
    if len(parts) > 1 and parts[-1] in ROOTS:
        config = replace(config, root=parts.pop())  # type: ignore[arg-type]
    if len(parts) > 1 and (m := re.fullmatch(r"r(\d+)", parts[-1])):
        parts.pop()
        config = replace(config, raise_cap=int(m.group(1)))
    if len(parts) > 1 and (m := re.fullmatch(r"k(\d+)(?:c(\d+))?(?:s(\d+))?(f(\d*))?(p(\d*))?", parts[-1])):
        parts.pop()
        river, sample = (None if x is None else int(x) for x in m.group(2, 3))
        flop, rollout = m.group(4) is not None, int(m.group(5)) if m.group(5) else None
        depth = 3 if flop else 2  # the first round searched: the turn, or the flop with ``f``
        config = replace(config, num_values=int(m.group(1)), river_cards=river, river_sample=sample, rollout_cards=rollout,
                         search_round=max(0, game.spec.num_rounds - depth) if isinstance(game, PokerGame) else None,
                         preflop=m.group(6) is not None, preflop_boards=int(m.group(7)) if m.group(7) else 256)
    if not isinstance(game, PokerGame):
        raise SubgameError(f"agent {spec!r}: a blueprint plays a no-limit poker game")
    blueprint = Blueprint.load(_existing(parts[0], spec))
    abstraction = load_deal_abstraction(parts[1], game.spec) if len(parts) > 1 else blueprint.deal_abstraction()
    return HunlSearchAgent(game, blueprint, abstraction, config, name=f"search:{Path(parts[0]).stem}")


def is_blueprint_file(file: str) -> bool:
    """Whether ``file`` is a blueprint of ``subgame blueprint`` (not a strategy file)."""
    try:
        Blueprint.load(file)
    except (SubgameError, OSError):
        return False
    return True


def _counter(kind: str, rest: str, spec: str, tree: PublicTree) -> CounterAgent:
    """``cdbr:MODEL[:DEPTH]`` or ``cdrnr:MODEL:P[:DEPTH]``."""
    parts = rest.split(":")
    depth = DEFAULT_COUNTER_DEPTH
    if len(parts) > (2 if kind == "cdrnr" else 1) and parts[-1].lstrip("-").isdigit():
        depth = int(parts.pop())
    p: float | None = None
    if kind == "cdrnr":
        if len(parts) < 2:
            raise SubgameError(f"agent {spec!r}: write cdrnr:MODEL:P[:DEPTH] with P in [0, 1], e.g. cdrnr:model.npz:0.5")
        try:
            p = float(parts.pop())
        except ValueError:
            raise SubgameError(f"agent {spec!r}: P must be a number in [0, 1], e.g. cdrnr:model.npz:0.5") from None
    file = ":".join(parts)
    model = Strategy.load(_existing(file, spec))
    if model.game_id != tree.game_id:
        raise SubgameError(f"agent {spec!r}: the model {file} is a strategy of {model.game_id!r}, the match is "
                           f"{tree.game_id!r}; give a model of this game")
    try:
        return CounterAgent(tree, model.check(tree), depth, p, name=f"{kind}:{Path(file).stem}")
    except SubgameError as e:
        raise type(e)(f"agent {spec!r}: {e}") from None


def _existing(file: str, spec: str) -> Path:
    path = Path(file)
    if not path.exists():
        raise SubgameError(f"unknown agent {spec!r}: give {SPEC_HELP}")
    return path


def _needs(game: Game | None, spec: str) -> Game:
    if game is None:
        raise SubgameError(f"agent {spec!r} needs the game itself (pass game= to load_agent)")
    return game


def _iterations(text: str, spec: str) -> tuple[str, int]:
    """``"FILE:300"`` -> ``("FILE", 300)``; no count gives the default."""
    head, sep, tail = text.rpartition(":")
    if sep and tail.isdigit():
        if int(tail) < 1:
            raise SubgameError(f"agent {spec!r}: iterations must be >= 1")
        return head, int(tail)
    return text, DEFAULT_RESOLVE_ITERATIONS
