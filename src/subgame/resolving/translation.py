"""Bet-size abstraction of a no-limit poker game and randomized pseudo-harmonic action translation.

A blueprint is usually computed on an *action abstraction*: the same game with only some of
the bet sizes (safe-and-nested §6). Here the abstraction of a no-limit game of the poker
family is the real game with the other sizes removed, so both share public states where no
off-tree action was taken (public keys name bets by their chip amounts): the abstract game's
tree is the real game's tree with some actions made illegal (:func:`restrict`). Public states
after an off-tree action exist only in the real game.

Action translation (the prior approach the paper compares with) answers an off-tree bet of
``x`` (a pot fraction) by pretending the opponent bet one of the two abstract sizes around it,
``A < x < B``: ``A`` with probability

    f(x) = ((B − x)(1 + A)) / ((B − A)(1 + x))

and ``B`` otherwise (the randomized pseudo-harmonic mapping of Ganzfried & Sandholm 2013),
then playing the abstract strategy after the translated action for the rest of the hand.
:func:`translation_strategy` writes that behaviour as a strategy of the real game, so its
exploitability is exact.
"""

from __future__ import annotations

from collections.abc import Collection, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import cache, cached_property
from weakref import WeakKeyDictionary

import numpy as np

from ..errors import GameDefinitionError, SubgameError
from ..games.base import CHANCE, Game
from ..games.poker.game import CALL, FOLD, PokerGame, PokerState
from ..games.poker.hands import card_name
from ..strategy import Strategy
from ..tree.lookup import InfosetLookup, label_array, states_named
from ..tree.public_tree import CHANCE_NODE, DECISION, PublicKey, PublicTree
from ..tree.sweep import forward_reach, transition_weights


def pseudo_harmonic(x: float, a: float, b: float) -> float:
    """The probability that the randomized pseudo-harmonic mapping sends bet ``x`` to ``a``.

    Ganzfried & Sandholm 2013: for abstract pot fractions ``a < b`` and ``a <= x <= b``,
    ``f(x) = ((b − x)(1 + a)) / ((b − a)(1 + x))``; ``x`` goes to ``b`` with ``1 − f(x)``.
    ``f(a) = 1``, ``f(b) = 0`` and ``f`` decreases in ``x``.

    Raises:
        SubgameError: ``a``, ``b`` not ``0 <= a < b`` or ``x`` outside ``[a, b]``.
    """
    if not (0.0 <= a < b) or not np.isfinite(b):
        raise SubgameError(f"pseudo-harmonic mapping needs abstract sizes 0 <= A < B, got A={a}, B={b}")
    if not a <= x <= b:
        raise SubgameError(f"bet of {x:g} pot is outside the abstraction interval [{a:g}, {b:g}]")
    return ((b - x) * (1.0 + a)) / ((b - a) * (1.0 + x))


def translate(x: float, sizes: Sequence[float]) -> tuple[tuple[int, float], ...]:
    """``(index into sizes, probability)`` of the abstract sizes an off-tree bet ``x`` maps to.

    ``sizes`` are the abstract bets available (pot fractions, any order). A bet equal to one of
    them maps to it; one between two adjacent sizes is split by :func:`pseudo_harmonic`.

    Raises:
        SubgameError: ``x`` below the smallest or above the largest abstract size.
    """
    if len(sizes) == 0:
        raise SubgameError(f"no abstract bet size to translate a bet of {x:g} pot to")
    order = np.argsort(np.asarray(sizes, dtype=np.float64), kind="stable")
    s = np.asarray(sizes, dtype=np.float64)[order]
    hit = np.flatnonzero(np.isclose(s, x, rtol=0.0, atol=1e-12))
    if hit.size:
        return ((int(order[hit[0]]), 1.0),)
    if x < s[0] or x > s[-1]:
        raise SubgameError(
            f"bet of {x:g} pot is outside every abstraction interval: the abstract sizes here are "
            f"{', '.join(f'{v:g}' for v in s)} pot"
        )
    hi = int(np.searchsorted(s, x))
    f = pseudo_harmonic(x, float(s[hi - 1]), float(s[hi]))
    return ((int(order[hi - 1]), f), (int(order[hi]), 1.0 - f))


@dataclass(frozen=True)
class BetAbstraction:
    """The bet sizes of a no-limit poker game that a blueprint keeps.

    Attributes:
        game: the real game (no-limit, poker family).
        fractions: the pot fractions kept, a subset of the game's (in any round: a game that sizes its
            rounds apart keeps in each round the kept sizes it has there).
        all_in: whether all-in is kept (only if the real game has it).
    """

    game: PokerGame
    fractions: tuple[float, ...]
    all_in: bool = True

    def __post_init__(self) -> None:
        if not isinstance(self.game, PokerGame) or self.game.spec.betting != "nolimit":
            raise GameDefinitionError("a bet abstraction needs a no-limit game of the poker family")
        spec = self.game.spec
        real = sorted({f for r in range(spec.num_rounds) for f in spec.fractions(r)})
        extra = [f for f in self.fractions if f not in real]
        if extra:
            raise GameDefinitionError(f"abstract bet sizes {extra} are not bet sizes of the game ({list(real)})")
        if self.all_in and not self.game.spec.all_in:
            raise GameDefinitionError("the abstraction keeps all-in but the game has no all-in action")

    @cached_property
    def abstract_game(self) -> PokerGame:
        """The game with only the abstraction's bet sizes (same rules otherwise; per round where the game sizes its rounds)."""
        spec = self.game.spec
        rounds = tuple(tuple(f for f in fs if f in self.fractions) for fs in spec.round_bet_fractions)
        kept = tuple(f for f in spec.bet_fractions if f in self.fractions) if rounds else tuple(self.fractions)
        return PokerGame(replace(spec, bet_fractions=kept, round_bet_fractions=rounds, all_in=self.all_in), self.game.name)

    def kept_names(self, st: PokerState) -> frozenset[str]:
        """Names of the actions the abstraction has at real state ``st`` (bets named by chip amount)."""
        g = self.abstract_game
        return frozenset(g.action_name(st, a) for a in g.legal_actions(st))


def public_states(game: Game, tree: PublicTree) -> list[PokerState | None]:
    """[N] a game state at each public node of ``tree`` (hole cards are placeholders), ``None`` where unknown.

    Betting and board cards are public in the poker family, so one state per public node
    gives every node's pot, stacks and legal bets. A tree's states are kept while it lives
    (nested solving restricts the same parts again and again).
    """
    if not isinstance(game, PokerGame):
        raise GameDefinitionError("bet abstraction and translation need a game of the poker family")
    kept = _KEPT_STATES.get(tree)
    if kept is None or kept[0] is not game:
        kept = (game, _replayed(game, tree))
        _KEPT_STATES[tree] = kept
    return list(kept[1])


#: Per tree alive, its game and its public states (:func:`public_states`).
_KEPT_STATES: WeakKeyDictionary[PublicTree, tuple[PokerGame, tuple[PokerState | None, ...]]] = WeakKeyDictionary()


def _replayed(game: PokerGame, tree: PublicTree) -> tuple[PokerState | None, ...]:
    k = game.spec.hole_cards
    fake = (tuple(range(-k, 0)), tuple(range(-2 * k, -k)))
    out: list[PokerState | None] = [None] * tree.num_nodes
    for n in range(tree.num_nodes):
        par = int(tree.parent[n])
        if par < 0:
            out[n] = _replay(game, game.root()._replace(hole=fake), tree.public_key[n][2:])
            continue
        st = out[par]
        out[n] = None if st is None else _replay(game, st, tree.public_key[n][-1:])
    return tuple(out)


def _replay(game: PokerGame, st: PokerState | None, obs: Sequence[str]) -> PokerState | None:
    for o in obs:
        if st is None or game.actor(st) < CHANCE:
            return None
        deal = _board_deal(game, st, o) if game.actor(st) == CHANCE else None
        if deal is not None:
            st = game.next_state(st, deal)
            continue
        acts = game.legal_actions(st) if game.actor(st) != CHANCE else [a for a, _ in game.chance_outcomes(st)]
        nxt = [a for a in acts if game.observations(st, a)[0] == o]
        st = game.next_state(st, nxt[0]) if nxt else None
    return st


@cache
def _card_codes(num_ranks: int, num_suits: int) -> dict[str, int]:
    return {card_name(c, num_ranks, num_suits): c for c in range(num_ranks * num_suits)}


def _board_deal(game: PokerGame, st: PokerState, name: str) -> int | None:
    """The chance action dealing the board cards ``name`` at ``st`` (a flop: one of 22,100), read from the cards'
    names instead of naming every outcome; None where ``name`` is not such a deal."""
    spec = game.spec
    codes = _card_codes(spec.num_ranks, spec.num_suits)
    width = len(next(iter(codes)))
    cards = [codes.get(name[i : i + width], -1) for i in range(0, len(name), width)]
    if not cards or min(cards) < 0 or cards != sorted(set(cards)) or set(cards) & set(st.board):
        return None
    action = sum(c * spec.deck_size**i for i, c in enumerate(cards))
    return action if game.observations(st, action)[0] == name else None


def bet_fraction(st: PokerState, name: str) -> float:
    """The pot fraction of the bet named ``r<amount>`` at state ``st`` (raise over the pot after calling)."""
    top, pot = max(st.contrib), sum(st.contrib)
    to_call = top - st.contrib[st.to_act]
    return (int(name[1:]) - top) / (pot + to_call)


def node_actions(tree: PublicTree) -> list[tuple[np.ndarray, tuple[str, ...]] | None]:
    """[N] at decision nodes, the actor's (action ids, action names) of the node's legal slots."""
    out: list[tuple[np.ndarray, tuple[str, ...]] | None] = [None] * tree.num_nodes
    for p, pa in enumerate(tree.players):
        nodes = pa.node[pa.infoset_priv]
        first = np.flatnonzero(np.r_[True, nodes[1:] != nodes[:-1]]) if nodes.size else np.zeros(0, int)
        for i in first:
            n = int(nodes[i])
            if tree.actor[n] == p:
                out[n] = (pa.action_ids[i].copy(), pa.action_names[i])
    return out


def restrict(
    game: Game, tree: PublicTree, abstraction: BetAbstraction, *, players: Collection[int] = (0, 1),
    open_at: Collection[PublicKey] = (),
) -> PublicTree:
    """``tree`` with the bets outside ``abstraction`` made illegal for ``players``.

    Args:
        open_at: public states where the actor keeps all her real actions (where nested
            solving has added an off-tree action to the abstraction).
    """
    opened = [n for n in map(tree.node_of_key.get, map(tuple, open_at)) if n is not None]
    new_players = []
    for p, pa in enumerate(tree.players):
        legal = pa.legal.copy()
        if p in players and pa.num_infosets:
            mask = _kept_slots(game, tree, abstraction, p)
            if opened:
                mask = mask.copy()
                mask[opened] = True
            legal &= mask[pa.node[pa.infoset_priv]]
        new_players.append(replace(pa, stored_legal=legal))
    return replace(tree, players=(new_players[0], new_players[1]))


def _kept_slots(game: Game, tree: PublicTree, abstraction: BetAbstraction, player: int) -> np.ndarray:
    """[N, A] per public node, whether each of ``player``'s action slots there is one ``abstraction`` keeps (all true
    where she does not act); kept while ``tree`` lives, as nested solving restricts the same tree again and again."""
    kept = _KEPT_SLOTS.setdefault(tree, {})
    key = (id(abstraction), player)  # the entry holds the abstraction: its id is not reused while the tree lives
    if key not in kept or kept[key][0] is not abstraction or kept[key][1] is not game:
        states = public_states(game, tree)
        pa = tree.players[player]
        nodes = pa.node[pa.infoset_priv]
        mask = np.ones((tree.num_nodes, pa.max_actions), dtype=bool)  # one row per public node
        for i in np.flatnonzero(np.r_[True, nodes[1:] != nodes[:-1]]):
            n = int(nodes[i])
            st = states[n]
            if st is not None and tree.actor[n] == player:
                names = abstraction.kept_names(st)
                mask[n, : len(pa.action_names[i])] = [nm in names for nm in pa.action_names[i]]
        mask.flags.writeable = False
        kept[key] = (abstraction, game, mask)
    return kept[key][2]


#: Per tree alive, by bet abstraction and player, the action slots the abstraction keeps (:func:`_kept_slots`).
_KEPT_SLOTS: WeakKeyDictionary[PublicTree, dict[tuple[int, int], tuple[BetAbstraction, Game, np.ndarray]]] = \
    WeakKeyDictionary()


def fallback_slot(ids: np.ndarray, legal: np.ndarray, want: int) -> int:
    """The legal slot for action id ``want``: itself, else the nearest raise (lower first), else check/call.

    Where an abstract and a real state differ in pot and stacks, an action of one may be
    missing in the other; the paper is silent, this is our choice.
    """
    ok = np.flatnonzero(legal)
    same = ok[ids[ok] == want]
    if same.size:
        return int(same[0])
    if want >= 2:
        raises = ok[ids[ok] >= 2]
        if raises.size:
            lower = raises[ids[raises] < want]
            return int(lower[-1]) if lower.size else int(raises[0])
    calls = ok[ids[ok] == CALL]
    return int(calls[0]) if calls.size else int(ok[0])


def off_tree_targets(st: PokerState, names: tuple[str, ...], ids: np.ndarray, abstract_legal: np.ndarray,
                     slot: int) -> tuple[tuple[int, float], ...]:
    """``(action id, probability)`` the real action at ``slot`` translates to at real state ``st``."""
    if abstract_legal[slot] or ids[slot] in (FOLD, CALL):
        return ((int(ids[slot]), 1.0),)
    bets = [k for k in np.flatnonzero(abstract_legal) if ids[k] >= 2]
    sizes = [bet_fraction(st, names[k]) for k in bets]
    return tuple((int(ids[bets[j]]), p) for j, p in translate(bet_fraction(st, names[slot]), sizes) if p > 0)


def _follow_chance(tree: PublicTree, n: int, here: list[tuple[int, float]], branches: list[list[tuple[int, float]]]) -> None:
    """Carry the translated nodes ``here`` of chance node ``n`` to each child: a translated chance node
    follows the same outcome where it has it (appended to ``branches`` of the child)."""
    for c in _children(tree, n):
        obs = tree.public_key[c][-1]
        for m, w in here:
            mc = tree.node_of_key.get(tree.public_key[m] + (obs,), -1) if tree.kind[m] == CHANCE_NODE else -1
            if mc >= 0:
                branches[c].append((mc, w))


def translation_strategy(game: Game, tree: PublicTree, abstraction: BetAbstraction, blueprint: Strategy,
                         responder: int, *, own_off_tree: bool = False, root_reach: np.ndarray | None = None,
                         root_targets: Mapping[int, Sequence[tuple[int, float]]] | None = None) -> np.ndarray:
    """[I, A] the real-game strategy of ``responder`` who meets off-tree bets by pseudo-harmonic translation.

    ``blueprint`` is a strategy on ``tree`` that plays only abstract actions (solved on
    :func:`restrict`). Each off-tree bet of the opponent is translated once, at random, to
    an abstract size at the real state (Ganzfried & Sandholm 2013); afterwards the responder
    plays the blueprint at the translated public state, real actions being matched to
    abstract ones by action id (:func:`fallback_slot` where one is missing). The mixture
    over translations becomes a behaviour strategy by weighting each translated infoset
    with the responder's own blueprint reach there (Kuhn's theorem). Real infosets no
    translated path matches get the blueprint's own row there.

    With ``own_off_tree`` her own off-tree bets (which the blueprint never makes, but a
    re-solved strategy may, or which a depth-limited solve assumes she continues after,
    depth-limited paper §6.1) are translated the same way, so below them she plays the
    blueprint of the translated bet instead of rows the blueprint never trained.

    On a part of a game cut below an off-tree bet (a flop's forest below the preflop), the bets
    above were translated already: ``root_targets`` gives each root reached through one the
    roots it was translated to, with their probabilities (:func:`translation_branches` on the
    part above), and ``root_reach`` [R] the responder's reach at the roots, which weights
    the mixture as her reach of the whole game's information sets would.

    Raises:
        SubgameError: an off-tree bet outside every abstraction interval.
    """
    return _translation(game, tree, abstraction, blueprint, responder, own_off_tree, root_reach, root_targets)[0]


def translation_branches(game: Game, tree: PublicTree, abstraction: BetAbstraction, blueprint: Strategy,
                         responder: int) -> list[list[tuple[int, float]]]:
    """Per public node of ``tree``, the nodes the responder of :func:`translation_strategy` takes it for, with their
    probabilities (the node itself, with 1, where no off-tree bet of the opponent was made on the way)."""
    return _translation(game, tree, abstraction, blueprint, responder, False, None, None)[1]


def _translation(game: Game, tree: PublicTree, abstraction: BetAbstraction, blueprint: Strategy, responder: int,
                 own_off_tree: bool, root_reach: np.ndarray | None,
                 root_targets: Mapping[int, Sequence[tuple[int, float]]] | None,
                 ) -> tuple[np.ndarray, list[list[tuple[int, float]]]]:
    """:func:`translation_strategy` and :func:`translation_branches` at once."""
    if responder not in (0, 1):
        raise SubgameError(f"the responder must be player 0 or 1, got {responder!r}")
    blueprint.check(tree)
    opp = 1 - responder
    states = public_states(game, tree)
    acts = node_actions(tree)
    abs_tree = restrict(game, tree, abstraction)
    abs_acts = node_actions_legal(abs_tree)
    real_acts = node_actions_legal(tree) if own_off_tree else abs_acts
    pa = tree.players[responder]
    sigma = blueprint.probs[responder]
    reach = forward_reach(tree, responder, transition_weights(tree, responder, sigma), root_reach)
    num = np.zeros_like(sigma)
    den = np.zeros(pa.num_infosets)
    node_infosets = _node_infosets(tree, responder)
    lookup = InfosetLookup(tree, responder)
    key_node = tree.node_of_key
    branches: list[list[tuple[int, float]]] = [[] for _ in range(tree.num_nodes)]
    for root in map(int, np.flatnonzero(tree.parent < 0)):  # one, or each subgame's of a forest
        branches[root] = list((root_targets or {}).get(root, ((root, 1.0),)))
    for n in range(tree.num_nodes):
        here = branches[n]
        if not here or tree.kind[n] not in (DECISION, CHANCE_NODE):
            continue
        key = tree.public_key[n]
        if tree.kind[n] == CHANCE_NODE:
            _follow_chance(tree, n, here, branches)
            continue
        ids, names = acts[n]  # type: ignore[misc]
        actor = int(tree.actor[n])
        live = [(m, w) for m, w in here if tree.kind[m] == DECISION and tree.actor[m] == actor]
        if actor == opp or own_off_tree:
            st = states[n]
            legal_abs = abs_acts[n]
            for slot, name in enumerate(names):
                c = key_node[key + (name,)]
                if st is None or (actor != opp and (legal_abs[slot] or not real_acts[n][slot])):
                    continue
                for want, p in off_tree_targets(st, names, ids, legal_abs, slot):
                    for m, w in live:
                        mids, mnames = acts[m]  # type: ignore[misc]
                        k = fallback_slot(mids, abs_acts[m], want)
                        branches[c].append((key_node[tree.public_key[m] + (mnames[k],)], w * p))
            if actor == opp:
                continue
        rows, labels = node_infosets[n]
        real_legal = np.ones(len(names), dtype=bool)
        for m, w in live:
            mids, mnames = acts[m]  # type: ignore[misc]
            at = rows if m == n else _translated(lookup, m, labels)  # her information set at m of each at n
            r_hat = reach[pa.infoset_priv[at]] * w
            for k in map(int, np.flatnonzero(abs_acts[m])):
                slot = fallback_slot(ids, real_legal, int(mids[k]))
                num[rows, slot] += r_hat * sigma[at, k]
                branches[key_node[key + (names[slot],)]].append((key_node[tree.public_key[m] + (mnames[k],)], w))
            den[rows] += r_hat
    out = sigma.copy()
    has = den > 0
    out[has] = num[has] / den[has, None]
    return out, branches


def node_actions_legal(tree: PublicTree) -> list[np.ndarray]:
    """[N] the actor's legal mask over the node's slots (empty where no one acts)."""
    out = [np.zeros(0, dtype=bool)] * tree.num_nodes
    for p, pa in enumerate(tree.players):
        nodes = pa.node[pa.infoset_priv]
        for i in np.flatnonzero(np.r_[True, nodes[1:] != nodes[:-1]]) if nodes.size else ():
            n = int(nodes[i])
            if tree.actor[n] == p:
                out[n] = pa.legal[i, : len(pa.action_names[i])].copy()
    return out


def _children(tree: PublicTree, n: int) -> np.ndarray:
    return np.flatnonzero(tree.parent == n)


def _node_infosets(tree: PublicTree, player: int) -> dict[int, tuple[np.ndarray, np.ndarray]]:
    """node -> (the player's infosets there, their private labels)."""
    pa = tree.players[player]
    nodes = pa.node[pa.infoset_priv]
    out: dict[int, tuple[np.ndarray, np.ndarray]] = {}
    if not nodes.size:
        return out
    cuts = np.flatnonzero(np.r_[True, nodes[1:] != nodes[:-1], True])
    for lo, hi in zip(cuts[:-1], cuts[1:]):
        rows = np.arange(lo, hi)
        out[int(nodes[lo])] = (rows, label_array(pa.label, pa.infoset_priv[rows]))
    return out


def _translated(lookup: InfosetLookup, node: int, labels: np.ndarray) -> np.ndarray:
    """[len(labels)] the information set at ``node`` with each private label (one vectorized join)."""
    states = states_named(lookup.tree, lookup.player, np.full(labels.size, node, dtype=np.int64), labels)
    if (states < 0).any():
        bad = labels[int(np.flatnonzero(states < 0)[0])]
        raise SubgameError(f"private state {str(bad)!r} has no match at the translated public state")
    return lookup.of_state[states]
