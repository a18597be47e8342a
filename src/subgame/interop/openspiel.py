"""Strategies to and from OpenSpiel policies.

:func:`to_tabular_policy` writes a :class:`~subgame.strategy.Strategy` on a compiled tree
as an OpenSpiel ``TabularPolicy``, and :func:`from_tabular_policy` reads any OpenSpiel
``Policy`` back into a strategy. Each OpenSpiel information set is matched with exactly
one of the tree's by replaying a history that reaches it in our game (an
:class:`~subgame.games.openspiel.OpenSpielGame` already knows where its information sets
lie). Besides wrapped OpenSpiel games, the native ``kuhn`` and ``leduc`` games map to
OpenSpiel's ``kuhn_poker`` and ``leduc_poker``, and a poker game read from an ACPC
``.game`` file (:mod:`~subgame.games.poker.acpc`) to ``universal_poker`` loaded from the
same definition, where every deal is one card (both number a card ``rank * numSuits + suit``
and a bet the same way: OpenSpiel's ``fcpa`` abstraction is our pot-size raise and all-in).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import numpy as np

from ..errors import GameDefinitionError, IllegalActionError, InvalidRangeError
from ..games.base import Game, State, game_fingerprint
from ..games.openspiel import OpenSpielGame, import_pyspiel, join_label
from ..games.poker import KUHN, LEDUC, PokerGame
from ..games.poker.game import CALL, FOLD, RAISE
from ..strategy import Strategy
from ..tree.public_tree import PublicKey, PublicTree

if TYPE_CHECKING:
    import pyspiel
    from open_spiel.python.policy import Policy, TabularPolicy


class _Bridge:
    """How a history of an OpenSpiel game replays into one of our games (identity by default)."""

    def __init__(self, game: Game, os_game: pyspiel.Game):
        self.game = game
        self.os_game = os_game

    def action(self, os_state: pyspiel.State, state: State | None, os_action: int) -> int:
        """Our action id for OpenSpiel's ``os_action`` at ``os_state`` (our ``state``)."""
        return os_action

    def place(self, player: int, key: str) -> tuple[PublicKey, str] | None:
        """``(public key, label)`` of an OpenSpiel information set if known without replaying."""
        return None


class _AdapterBridge(_Bridge):
    """A wrapped OpenSpiel game knows where each of its information sets lies."""

    def __init__(self, game: OpenSpielGame):
        super().__init__(game, game.os_game)
        self.adapter = game

    def place(self, player: int, key: str) -> tuple[PublicKey, str] | None:
        return self.adapter.openspiel_place(player, key)


class _KuhnBridge(_Bridge):
    """OpenSpiel's Kuhn poker has Pass (0) and Bet (1); ours check/call, fold and raise."""

    def action(self, os_state: pyspiel.State, state: State | None, os_action: int) -> int:
        if os_state.is_chance_node():
            return os_action
        facing_bet = FOLD in self.game.legal_actions(state)
        if facing_bet:
            return FOLD if os_action == 0 else CALL
        return CALL if os_action == 0 else RAISE


_POKER_TWINS = (("kuhn_poker", KUHN, _KuhnBridge), ("leduc_poker", LEDUC, _Bridge))


def _bridge(game: Game, tree: PublicTree, os_game: pyspiel.Game | None) -> _Bridge:
    pyspiel = import_pyspiel()
    if tree.game_id != game_fingerprint(game):
        raise GameDefinitionError(f"the tree was compiled from {tree.game_id!r}, not from {game.describe()}")
    if isinstance(game, OpenSpielGame):
        if os_game is not None and str(os_game) != str(game.os_game):
            raise GameDefinitionError(f"{game.name} wraps OpenSpiel's {game.os_game}, not {os_game}")
        return _AdapterBridge(game)
    if isinstance(game, PokerGame):
        if os_game is not None and os_game.get_type().short_name == "universal_poker":
            return _Bridge(game, os_game)  # the same ACPC definition: the same action ids (checked while matching)
        for os_name, spec, kind in _POKER_TWINS:
            if game.spec != spec:
                continue
            twin = pyspiel.load_game(os_name)
            if os_game is None:
                return kind(game, twin)
            if os_game.get_type().short_name == os_name and os_game.get_parameters() == twin.get_parameters():
                return kind(game, os_game)
            raise GameDefinitionError(f"{game.name} corresponds to OpenSpiel's {os_name}(), not {os_game}")
        raise GameDefinitionError(
            f"{game.name} with these parameters has no OpenSpiel counterpart (only the standard kuhn and leduc "
            "games map to kuhn_poker and leduc_poker); load the game as 'openspiel:NAME' instead"
        )
    raise GameDefinitionError(
        f"{game.name}: no correspondence with an OpenSpiel game is known; load the game as 'openspiel:NAME'"
    )


#: ``(OpenSpiel state, our state, public key, both players' labels)`` after a history
_Replayed = tuple[Any, State, PublicKey, tuple[str, str]]


class _Replay:
    """Replays OpenSpiel histories into our game, sharing the work for common prefixes."""

    def __init__(self, bridge: _Bridge):
        self.bridge = bridge
        game = bridge.game
        self._memo: dict[tuple[int, ...], _Replayed] = {
            (): (bridge.os_game.new_initial_state(), game.root(), (), ("", ""))
        }

    def at(self, history: tuple[int, ...]) -> _Replayed:
        """``(OpenSpiel state, our state, public key, labels)`` after ``history``."""
        entry = self._memo.get(history)
        if entry is not None:
            return entry
        os_state, state, public, labels = self.at(history[:-1])
        game, os_action = self.bridge.game, history[-1]
        action = self.bridge.action(os_state, state, os_action)
        try:
            child = game.apply(state, action)
        except IllegalActionError as exc:
            raise GameDefinitionError(
                f"{game.name} does not match OpenSpiel's {self.bridge.os_game}: OpenSpiel's action "
                f"{os_state.action_to_string(os_state.current_player(), os_action)!r} after history "
                f"{list(history[:-1])} has no counterpart ({exc})"
            ) from None
        pub, o0, o1 = game.observations(state, action)
        entry = (os_state.child(os_action), child, public + (pub,), (join_label(labels[0], o0), join_label(labels[1], o1)))
        self._memo[history] = entry
        return entry


@dataclass(frozen=True)
class _Correspondence:
    """Where each OpenSpiel (information set, action) lies in the tree, as flat arrays per player."""

    rows: tuple[np.ndarray, np.ndarray]  #: policy row (OpenSpiel information set)
    os_actions: tuple[np.ndarray, np.ndarray]  #: OpenSpiel action id
    infosets: tuple[np.ndarray, np.ndarray]  #: our information set
    slots: tuple[np.ndarray, np.ndarray]  #: our action slot


def _correspondence(bridge: _Bridge, tree: PublicTree, table: TabularPolicy) -> _Correspondence:
    """Match every OpenSpiel information set of ``table`` with exactly one of ``tree``'s."""
    game = bridge.game
    replay = _Replay(bridge)
    out: list[list[list[int]]] = []
    for p in (0, 1):
        pa = tree.players[p]
        private_at: dict[tuple[int, str], int] = {}
        for g, (node, label) in enumerate(zip(pa.node.tolist(), pa.label)):
            if private_at.setdefault((node, label), g) != g:
                raise GameDefinitionError(f"{game.name}: two private states of player {p} share the label {label!r}")
        infoset_of = {g: i for i, g in enumerate(pa.infoset_priv.tolist())}
        matched = np.zeros(pa.num_infosets, dtype=bool)
        cols: list[list[int]] = [[], [], [], []]
        for key in table.states_per_player[p]:
            row = table.state_lookup[key]
            rep = table.states[row]
            place, state = bridge.place(p, key), None
            if place is None:
                _, state, public, labels = replay.at(tuple(rep.history()))
                place = (public, labels[p])
            node = tree.node_of_key.get(place[0])
            priv = private_at.get((node, place[1])) if node is not None else None
            i = infoset_of.get(priv) if priv is not None else None
            if i is None:
                raise GameDefinitionError(
                    f"{game.name}: OpenSpiel information set {key!r} of player {p} has no counterpart in the tree "
                    f"(public state {list(place[0])!r}, private state {place[1]!r}); the tree must be the full game"
                )
            if matched[i]:
                raise GameDefinitionError(
                    f"{game.name}: several OpenSpiel information sets of player {p} map to one information set "
                    f"{place[1]!r}, among them {key!r}"
                )
            matched[i] = True
            os_actions = list(rep.legal_actions(p))
            ours = [bridge.action(rep, state, a) for a in os_actions]
            ids = pa.action_ids[i]
            if sorted(ours) != sorted(ids[pa.legal[i]].tolist()):
                raise GameDefinitionError(
                    f"{game.name}: at OpenSpiel information set {key!r} the actions {os_actions} map to {ours}, "
                    f"but the tree's information set has actions {ids[pa.legal[i]].tolist()}"
                )
            slot_of = {int(a): k for k, a in enumerate(ids.tolist()) if a >= 0}
            for a, b in zip(os_actions, ours):
                cols[0].append(row)
                cols[1].append(a)
                cols[2].append(i)
                cols[3].append(slot_of[b])
        if not matched.all():
            i = int(np.flatnonzero(~matched)[0])
            raise GameDefinitionError(
                f"{game.name}: information set {pa.label[pa.infoset_priv[i]]!r} of player {p} has no OpenSpiel "
                f"counterpart in {bridge.os_game}"
            )
        out.append(cols)

    def column(c: int) -> tuple[np.ndarray, np.ndarray]:
        return np.asarray(out[0][c], dtype=np.int64), np.asarray(out[1][c], dtype=np.int64)

    return _Correspondence(column(0), column(1), column(2), column(3))


def to_tabular_policy(
    game: Game, tree: PublicTree, strategy: Strategy, os_game: pyspiel.Game | None = None
) -> TabularPolicy:
    """``strategy`` as an OpenSpiel ``TabularPolicy`` of the corresponding OpenSpiel game.

    Args:
        game: an :class:`OpenSpielGame`, the native ``kuhn`` or ``leduc`` game, or a
            poker game with one-card deals read from an ACPC definition.
        tree: the full game compiled from ``game``.
        strategy: a strategy on ``tree``.
        os_game: the OpenSpiel game; by default the wrapped game, or ``kuhn_poker`` /
            ``leduc_poker`` for the native games; ``universal_poker`` of the same ACPC
            definition for an ACPC game.

    Raises:
        GameDefinitionError: the games do not correspond (an information set or action
            of one has no counterpart in the other).
    """
    from open_spiel.python.policy import TabularPolicy

    strategy.check(tree)
    bridge = _bridge(game, tree, os_game)
    table = TabularPolicy(bridge.os_game)
    match = _correspondence(bridge, tree, table)
    probs = np.zeros_like(table.action_probability_array)
    for p in (0, 1):
        probs[match.rows[p], match.os_actions[p]] = strategy.probs[p][match.infosets[p], match.slots[p]]
    table.action_probability_array = probs
    return table


def from_tabular_policy(
    game: Game, tree: PublicTree, policy: Policy, os_game: pyspiel.Game | None = None
) -> Strategy:
    """The strategy on ``tree`` that plays like the OpenSpiel ``policy`` (inverse of :func:`to_tabular_policy`).

    Args:
        policy: a ``TabularPolicy`` of both players, or any OpenSpiel ``Policy``.
        os_game: the OpenSpiel game; by default the policy's game.

    Raises:
        GameDefinitionError: the games do not correspond.
        InvalidRangeError: the policy's probabilities at an information set are negative
            or do not sum to one over the legal actions.
    """
    from open_spiel.python.policy import TabularPolicy

    bridge = _bridge(game, tree, os_game if os_game is not None else policy.game)
    table = policy if isinstance(policy, TabularPolicy) else TabularPolicy(bridge.os_game)
    match = _correspondence(bridge, tree, table)
    if table is policy:
        values = policy.action_probability_array
    else:
        values = np.zeros_like(table.action_probability_array)
        for row, state in enumerate(table.states):
            for a, x in policy.action_probabilities(state, state.current_player()).items():
                values[row, a] = x
    probs = []
    for p, pa in enumerate(tree.players):
        x = np.zeros(pa.legal.shape)
        x[match.infosets[p], match.slots[p]] = values[match.rows[p], match.os_actions[p]]
        sums = x.sum(axis=1)
        bad = np.flatnonzero((x.min(axis=1, initial=0.0) < 0) | (np.abs(sums - 1.0) > 1e-6))
        if bad.size:
            i = int(bad[0])
            row = int(match.rows[p][np.flatnonzero(match.infosets[p] == i)[0]])
            key = next(k for k in table.states_per_player[p] if table.state_lookup[k] == row)
            raise InvalidRangeError(
                f"OpenSpiel policy for player {p} at {key!r}: probabilities {x[i][pa.legal[i]].tolist()} are "
                "negative or do not sum to 1 over the legal actions"
            )
        probs.append(x)
    return Strategy(tree.game_id, (probs[0], probs[1]))


__all__ = ["from_tabular_policy", "to_tabular_policy"]
