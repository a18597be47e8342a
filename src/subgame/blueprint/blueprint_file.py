"""A blueprint of an implicit abstract game: its file, its action at any history, and its rows on a compiled tree.

A :class:`Blueprint` is the average strategy of
:class:`~subgame.blueprint.implicit_mccfr.ImplicitMCCFR` stored per (betting node, bucket),
never per real information set, with what defines its abstract game (rules, action
abstraction text, card abstraction name and bucket counts), so that a blueprint of another
game or abstraction is refused. :func:`strategy_on` gives its rows on a tree compiled from a
game small enough to compile, where its exploitability is then exact.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from functools import cached_property
from pathlib import Path

import numpy as np

from ..errors import GameDefinitionError, StrategyFileError
from ..files import read_npz, write_npz
from ..games.poker.game import PokerGame
from ..games.poker.spec import PokerSpec
from ..solve.abstraction import _split_public
from ..strategy import Strategy
from ..tree.poker_compile import deal_hands, state_hands
from ..tree.public_tree import PublicTree
from .actions import ActionAbstraction, BettingTree, parse_actions
from .buckets4 import Buckets4Config, FourRoundBuckets
from .deal_abstraction import DealAbstraction, ExactCards
from .implicit_mccfr import ImplicitMCCFR, TableLayout, spec_json, spec_of_json

BLUEPRINT_FORMAT = "subgame-blueprint"
BLUEPRINT_VERSION = 1


@dataclass(frozen=True, eq=False)
class Blueprint:
    """An average strategy per (betting node, bucket) of an abstract no-limit game.

    Attributes:
        spec: the game's rules.
        actions: the action abstraction.
        abstraction: the card abstraction's name (:attr:`DealAbstraction.name`).
        num_buckets: [R] buckets per round.
        iterations: iterations of the solve.
        probs: [slots] float32 action probabilities, laid out by :class:`TableLayout`.
        buckets4: the four-round abstraction's config (it rebuilds the same buckets), else ``None``.
    """

    spec: PokerSpec
    actions: ActionAbstraction
    abstraction: str
    num_buckets: tuple[int, ...]
    iterations: int
    probs: np.ndarray
    buckets4: Buckets4Config | None = None

    @staticmethod
    def of(solver: ImplicitMCCFR) -> Blueprint:
        four = solver.abstraction.config if isinstance(solver.abstraction, FourRoundBuckets) else None
        return Blueprint(solver.spec, solver.actions, solver.abstraction.name, solver.layout.num_buckets, solver.iteration,
                         solver.average_probs(), four)

    def deal_abstraction(self) -> DealAbstraction:
        """The card abstraction it was solved in, rebuilt (exact cards or four-round buckets; a bucket file is not kept)."""
        if self.abstraction == "exact":
            return ExactCards(self.spec)
        if self.buckets4 is None:
            raise GameDefinitionError(f"this blueprint was solved with the bucket file {self.abstraction!r}; load it with "
                                      "load_deal_abstraction(FILE, spec)")
        out = FourRoundBuckets.build(self.buckets4)
        self.check(out)
        return out

    @cached_property
    def tree(self) -> BettingTree:
        return BettingTree.build(self.spec, self.actions)

    @cached_property
    def layout(self) -> TableLayout:
        return TableLayout.of(self.tree, self.num_buckets)

    def policy(self, node: int, buckets: np.ndarray) -> np.ndarray:
        """[n, A] the strategy at betting node ``node`` of each bucket [n] (the node's actions in tree order)."""
        a = int(self.tree.num_actions[node])
        at = int(self.layout.offset[node]) + np.asarray(buckets, np.int64)[:, None] * a + np.arange(a)
        out: np.ndarray = self.probs[at]
        return out

    def check(self, abstraction: DealAbstraction) -> None:
        """Refuse a card abstraction other than the one this blueprint was solved in."""
        if abstraction.name != self.abstraction or tuple(abstraction.num_buckets) != self.num_buckets:
            raise GameDefinitionError(f"this blueprint was solved with card abstraction {self.abstraction!r} "
                                      f"({list(self.num_buckets)} buckets), not {abstraction.name!r}")

    def node_of(self, betting: tuple[str, ...]) -> int:
        """The betting node of a sequence of action names (``r<to>``, ``c``, ``f``), -1 where it leaves the abstraction."""
        node = 0
        for name in betting:
            node = self.tree.child(node, name.split(":")[-1])
            if node < 0:
                return -1
        return node

    def save(self, path: str | Path) -> Path:
        """Write the blueprint to a versioned ``.npz`` file (atomically)."""
        header = {"format": BLUEPRINT_FORMAT, "version": BLUEPRINT_VERSION, "spec": spec_json(self.spec),
                  "actions": self.actions.text(), "abstraction": self.abstraction, "num_buckets": list(self.num_buckets),
                  "iterations": self.iterations, "buckets4": None if self.buckets4 is None else asdict(self.buckets4)}
        return write_npz(path, header, {"probs": self.probs})

    @staticmethod
    def load(path: str | Path) -> Blueprint:
        """Read a file written by :meth:`save`; a clear error for any other file."""
        header, arrays = read_npz(path, format=BLUEPRINT_FORMAT, version=BLUEPRINT_VERSION, kind="blueprint",
                                  expected="a blueprint (subgame blueprint --out FILE)")
        try:
            spec = spec_of_json(header["spec"])
            four = header.get("buckets4")
            bp = Blueprint(spec, parse_actions(header["actions"]).for_rounds(spec.num_rounds), str(header["abstraction"]),
                           tuple(int(b) for b in header["num_buckets"]), int(header["iterations"]), arrays["probs"],
                           None if four is None else Buckets4Config.of_json(four))
        except (KeyError, TypeError) as exc:
            raise StrategyFileError(f"{path}: blueprint file without a valid entry ({exc})") from None
        if bp.probs.shape != (bp.layout.num_slots,):
            raise StrategyFileError(f"{path}: blueprint table of {bp.probs.shape} entries, its abstract game has "
                                    f"{bp.layout.num_slots}")
        return bp


def strategy_on(blueprint: Blueprint, game: PokerGame, tree: PublicTree, abstraction: DealAbstraction) -> Strategy:
    """The blueprint's rows at every information set of ``tree`` (compiled from ``game``), one step per public node.

    A game action the abstraction lacks gets probability 0.

    Raises:
        GameDefinitionError: another card abstraction, another game's rules, or a betting
            sequence of the tree that leaves the abstraction (compile the game with the
            abstraction's bet sizes).
    """
    blueprint.check(abstraction)
    if game.spec.stack != blueprint.spec.stack or game.spec.blinds != blueprint.spec.blinds \
            or game.spec.board_cards != blueprint.spec.board_cards:
        raise GameDefinitionError("the blueprint was solved for other rules (stack, blinds or rounds) than this game")
    hands = deal_hands(game)
    out = []
    for p, pa in enumerate(tree.players):
        probs = np.zeros(pa.legal.shape)
        nodes, node_of = np.unique(pa.node[pa.infoset_priv], return_inverse=True)
        order = np.argsort(node_of.reshape(-1), kind="stable")
        bounds = np.searchsorted(node_of.reshape(-1)[order], np.arange(nodes.size + 1))
        hand = hands[state_hands(game, tree, p)[pa.infoset_priv]]
        for u, n in enumerate(nodes.tolist()):  # one per public node
            idx = order[bounds[u] : bounds[u + 1]]
            betting, board = _split_public(game, tree.public_key[n])
            node = blueprint.node_of(betting)
            if node < 0:
                raise GameDefinitionError(f"betting {list(betting)} of the game leaves the blueprint's action abstraction")
            bucket = abstraction.buckets(int(blueprint.tree.round[node]), hand[idx],
                                         np.broadcast_to(np.asarray(board, np.int64), (idx.size, len(board))))
            rows = blueprint.policy(node, bucket)
            slots = np.flatnonzero(pa.legal[idx[0]])
            names = pa.action_names[int(idx[0])]
            column = {name: k for k, name in enumerate(blueprint.tree.actions_of(node))}
            for slot, name in zip(slots.tolist(), names):
                if name in column:
                    probs[idx, slot] = rows[:, column[name]]
            missing = set(column) - set(names)
            if missing:
                raise GameDefinitionError(f"the blueprint's actions {sorted(missing)} after {list(betting)} are not "
                                          "actions of the game")
        out.append(probs)
    return Strategy(tree.game_id, (out[0], out[1]), {"algo": "implicit-mccfr", "iterations": blueprint.iterations})
