"""OpenSpiel games as :class:`~subgame.games.base.Game`.

:class:`OpenSpielGame` wraps any two-player, zero-sum (or constant-sum), perfect-recall
OpenSpiel game with explicit chance outcomes, so that the compiler, the solvers and the
evaluation code run on it unchanged; simultaneous-move games are made turn-based first
(``pyspiel.convert_to_turn_based``). ``load_game("openspiel:liars_dice", dice_sides=3)``
builds one.

The compiler needs one public and one private observation per player for every move.
Where OpenSpiel provides factored observation strings (``provides_factored_observation_string``),
they are used: the public and private observation strings of the state after the move.
Otherwise they are derived from information-state strings, one history length at a time:

* Public states are the common-knowledge partition: two histories of equal length share
  a public state when a player cannot tell them apart (equal information-state strings),
  closed transitively. No partition into public states can be finer.
* The public observation of a move names the public state it leads to: the action's
  name when every history there was reached by that action (a bet, Leduc's board card),
  otherwise ``""`` for a chance move and ``"pN"`` for a move of player N (a private card,
  a hidden move of a turn-based simultaneous game), with ``"#k"`` appended where two
  public states under one parent would get the same name. Moves into terminal states
  are grouped by parent public state and action.
* A player's private observation is empty when her information-state string after the
  move follows from her previous one and the public observation (her own bets, the other
  player's private card), and is that string otherwise (her own private card).

Some games give a player who is not acting a string that is not hers: OpenSpiel's
``efg_game`` (Gambit files) returns, for both players, a string naming the *acting*
player's information set. For those (:data:`ACTING_STRINGS_ONLY`, or ``acting_only=True``)
a player's information-state string is read only where she acts; elsewhere what she knows
is what she knew at her last move, followed by the action she took there. Nothing is
lost: with perfect recall her information set where she next acts refines exactly that.

Either way every OpenSpiel information set must become one private state of one public
state. That is checked while the game is expanded; a game where it fails (imperfect
recall, or factored observations that do not fit) raises
:class:`~subgame.errors.GameDefinitionError`. The adapter remembers the information-state
string of every private state where a player acts (:meth:`OpenSpielGame.openspiel_infoset_key`),
so that :mod:`subgame.interop.openspiel` maps strategies to OpenSpiel policies and back.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, NamedTuple

from ..errors import GameDefinitionError, IllegalActionError
from .base import CHANCE, TERMINAL, Game
from .public_states import linked_groups, unique_name

if TYPE_CHECKING:
    import pyspiel

INSTALL_HINT = "pip install 'subgame[openspiel]'"
#: Games whose information-state string of a player who is not acting describes the actor's
#: information set; the adapter reads their strings only where the player acts.
ACTING_STRINGS_ONLY = frozenset({"efg_game"})
_OS_CHANCE, _OS_TERMINAL = -1, -4  # pyspiel.PlayerId.CHANCE and .TERMINAL


def import_pyspiel() -> ModuleType:
    """The ``pyspiel`` module, or a :class:`GameDefinitionError` that says how to install it."""
    try:
        return importlib.import_module("pyspiel")
    except ImportError:
        raise GameDefinitionError(
            f"OpenSpiel games need the open-spiel package; install it with {INSTALL_HINT}"
        ) from None


def join_label(label: str, observation: str) -> str:
    """A private state's label after one more private observation, as the compilers build it.

    Labels are the non-empty private observations joined by ``/``.
    """
    if not observation:
        return label
    return f"{label}/{observation}" if label else observation


class OpenSpielState:
    """A pyspiel state with its action history and the observation sequences that lead to it.

    Treat it as immutable: the wrapped ``state`` is never changed, every move makes a new
    one. Equality and hashing go by the OpenSpiel action history.
    """

    __slots__ = ("state", "history", "public", "labels")

    def __init__(
        self, state: pyspiel.State, history: tuple[int, ...], public: tuple[str, ...], labels: tuple[str, str]
    ):
        self.state = state
        self.history = history  #: OpenSpiel action ids from the root
        self.public = public  #: public observation sequence
        self.labels = labels  #: each player's private-state label, as the compiler builds it

    def __eq__(self, other: object) -> bool:
        return isinstance(other, OpenSpielState) and self.history == other.history

    def __hash__(self) -> int:
        return hash(self.history)

    def __repr__(self) -> str:
        return f"OpenSpielState(history={list(self.history)})"


class OpenSpielGame(Game[OpenSpielState]):
    """A two-player zero-sum OpenSpiel game; see the module docstring for its observations.

    Observations are computed once per history and cached (derived ones a whole history
    length at a time), so expanding the game again, for a subgame or to replay a policy,
    does not recompute them. Utilities are ``returns()[0]``; in a constant-sum game player
    1's utility is then ``-returns()[0]`` rather than ``returns()[1]``, which shifts her
    payoffs by a constant and leaves best responses, equilibria and NashConv unchanged.
    """

    def __init__(
        self, os_game: pyspiel.Game, name: str | None = None, params: Mapping[str, Any] | None = None,
        *, acting_only: bool | None = None,
    ):
        """Wrap ``os_game``; ``name`` and ``params`` default to OpenSpiel's short name and all its parameters.

        ``acting_only``: read a player's information-state string only where she acts
        (module docstring); ``None`` does so for the games in :data:`ACTING_STRINGS_ONLY`.
        """
        pyspiel = import_pyspiel()
        game_type = os_game.get_type()
        self.acting_only = game_type.short_name in ACTING_STRINGS_ONLY if acting_only is None else acting_only
        self.name = f"openspiel:{name or game_type.short_name}"
        self._params = dict(os_game.get_parameters() if params is None else params)
        if game_type.dynamics == pyspiel.GameType.Dynamics.SIMULTANEOUS:
            os_game = pyspiel.convert_to_turn_based(os_game)
            game_type = os_game.get_type()
        self.os_game = os_game
        self._check_supported(game_type)
        self._factored = None if self.acting_only else self._make_observers(game_type)
        # per player: (public key, label) <-> information-state string, where she acts
        self._key_at: tuple[dict[tuple[tuple[str, ...], str], str], ...] = ({}, {})
        self._place_of: tuple[dict[str, tuple[tuple[str, ...], str]], ...] = ({}, {})
        self._obs: dict[tuple[int, ...], tuple[str, str, str]] = {}  # by history of the state after the move
        self._levels: _CommonKnowledge | None = None

    @classmethod
    def load(cls, name: str, **params: Any) -> OpenSpielGame:
        """Load OpenSpiel's game ``name`` with ``params``.

        String values (from the command line) are converted to the type of the game's
        default for that parameter, or to int, float or bool when they look like one.

        Raises:
            GameDefinitionError: pyspiel is missing, the name or a parameter is unknown,
                or the game is not a two-player zero-sum game this adapter can handle.
        """
        pyspiel = import_pyspiel()
        short = name.split("(", 1)[0].strip()
        specs = {t.short_name: t for t in pyspiel.registered_games()}
        if short not in specs:
            close = difflib.get_close_matches(short, list(specs), n=3)
            hint = f"; did you mean {', '.join(close)}?" if close else "; see pyspiel.registered_names()"
            raise GameDefinitionError(f"openspiel: unknown game {short!r}{hint}")
        if params and "(" in name:
            raise GameDefinitionError(
                f"openspiel:{name}: give parameters either inside the name or as key=value pairs, not both"
            )
        defaults = specs[short].parameter_specification
        converted = {k: _convert(name, k, v, defaults.get(k)) for k, v in params.items()}
        try:
            os_game = pyspiel.load_game(name, converted) if converted else pyspiel.load_game(name)
        except pyspiel.SpielError as exc:
            raise GameDefinitionError(f"openspiel:{name}: OpenSpiel cannot load it with {converted}: {exc}") from None
        return cls(os_game, name, converted)

    def _check_supported(self, game_type: pyspiel.GameType) -> None:
        GT = import_pyspiel().GameType
        problem = None
        if self.os_game.num_players() != 2:
            problem = f"has {self.os_game.num_players()} players; only two-player games are supported"
        elif game_type.utility not in (GT.Utility.ZERO_SUM, GT.Utility.CONSTANT_SUM):
            problem = f"is not zero-sum (its utility type is {game_type.utility.name})"
        elif game_type.dynamics != GT.Dynamics.SEQUENTIAL:
            problem = f"has {game_type.dynamics.name} dynamics; only turn-based games are supported"
        elif game_type.chance_mode == GT.ChanceMode.SAMPLED_STOCHASTIC:
            problem = "samples chance outcomes instead of listing them"
        elif not game_type.provides_information_state_string:
            problem = "has no information-state strings (a perfect-recall game is required)"
        if problem:
            raise GameDefinitionError(f"{self.name} {problem}")

    def _make_observers(self, game_type: pyspiel.GameType) -> tuple[Any, Any] | None:
        """The (public, private) observers when the game factors its observations, else None."""
        if not game_type.provides_factored_observation_string:
            return None
        from open_spiel.python.observation import make_observation

        spiel = import_pyspiel()

        def make(public: bool, private: pyspiel.PrivateInfoType) -> Any:
            kind = spiel.IIGObservationType(public_info=public, perfect_recall=False, private_info=private)
            try:
                return make_observation(self.os_game, kind)
            except spiel.SpielError:
                return None

        public = make(True, spiel.PrivateInfoType.NONE)
        private = make(False, spiel.PrivateInfoType.SINGLE_PLAYER)
        if public is None or private is None or public.string_from(self.os_game.new_initial_state(), 0) is None:
            return None
        return public, private

    @property
    def params(self) -> Mapping[str, Any]:
        return dict(self._params)

    # -- rules -----------------------------------------------------------------------
    def root(self) -> OpenSpielState:
        st = OpenSpielState(self.os_game.new_initial_state(), (), (), ("", ""))
        self._remember(st)
        return st

    def actor(self, st: OpenSpielState) -> int:
        p = st.state.current_player()
        return TERMINAL if p == _OS_TERMINAL else (CHANCE if p == _OS_CHANCE else p)

    def legal_actions(self, st: OpenSpielState) -> tuple[int, ...]:
        return tuple(st.state.legal_actions())

    def chance_outcomes(self, st: OpenSpielState) -> tuple[tuple[int, float], ...]:
        return tuple((int(a), float(p)) for a, p in st.state.chance_outcomes())

    def next_state(self, st: OpenSpielState, action: int) -> OpenSpielState:
        history = st.history + (action,)
        pub, o0, o1 = self._obs.get(history) or self.observations(st, action)
        labels = (join_label(st.labels[0], o0), join_label(st.labels[1], o1))
        return OpenSpielState(st.state.child(action), history, st.public + (pub,), labels)

    def observations(self, st: OpenSpielState, action: int) -> tuple[str, str, str]:
        key = st.history + (action,)
        obs = self._obs.get(key)
        if obs is None:
            if self._factored is not None:
                self._observe_factored(st, self._factored)
            else:
                if self._levels is None:
                    self._levels = _CommonKnowledge(self)
                self._levels.grow_to(len(key))
            obs = self._obs.get(key)
            if obs is None:
                raise IllegalActionError(f"{self.name}: action {action} is not legal after history {list(st.history)}")
        return obs

    def utility(self, st: OpenSpielState) -> float:
        return float(st.state.returns()[0])

    def action_name(self, st: OpenSpielState, action: int) -> str:
        return str(st.state.action_to_string(st.state.current_player(), action))

    def utility_bound(self) -> float:
        return float(max(abs(self.os_game.max_utility()), abs(self.os_game.min_utility())))

    def state_of(self, history: Sequence[int]) -> OpenSpielState:
        """The state reached by a sequence of OpenSpiel action ids (validated)."""
        st = self.root()
        for a in history:
            st = self.apply(st, int(a))
        return st

    # -- information sets ----------------------------------------------------------------
    def openspiel_infoset_key(self, player: int, public_key: Sequence[str], label: str) -> str:
        """The OpenSpiel information-state string of ``player``'s private state ``label``
        in the public state ``public_key``, for private states where she acts.

        Known for every information set of the histories this game has expanded (compiling
        the game expands all of them).

        Raises:
            GameDefinitionError: no expanded history reaches that information set.
        """
        key = self._key_at[player].get((tuple(public_key), label))
        if key is None:
            raise GameDefinitionError(
                f"{self.name}: player {player} has no information set {label!r} in public state "
                f"{list(public_key)!r} among the histories expanded so far (compile the game first)"
            )
        return key

    def openspiel_place(self, player: int, key: str) -> tuple[tuple[str, ...], str] | None:
        """``(public key, label)`` of the OpenSpiel information set ``key`` of ``player``, if expanded."""
        return self._place_of[player].get(key)

    # -- observations ------------------------------------------------------------------
    def _observe_factored(self, st: OpenSpielState, observers: tuple[Any, Any]) -> None:
        """Observations of every move at ``st`` from OpenSpiel's factored observation strings."""
        public, private = observers
        s, base = st.state, st.history
        actions = [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions()
        for a in actions:
            c = s.child(a)
            obs = (public.string_from(c, 0), private.string_from(c, 0), private.string_from(c, 1))
            self._obs[base + (a,)] = obs
            p = c.current_player()
            if p in (0, 1):
                label = join_label(st.labels[p], obs[p + 1])
                self._remember_at(p, c.information_state_string(p), st.public + (obs[0],), label)

    def _remember(self, st: OpenSpielState) -> None:
        p = st.state.current_player()
        if p in (0, 1):
            self._remember_at(p, st.state.information_state_string(p), st.public, st.labels[p])

    def _remember_at(self, player: int, key: str, public: tuple[str, ...], label: str) -> None:
        place = (public, label)
        seen = self._place_of[player].setdefault(key, place)
        if seen != place:
            raise GameDefinitionError(
                f"{self.name}: player {player}'s information set {key!r} would lie in two public states, "
                f"{list(seen[0])!r} and {list(public)!r} (the game needs perfect recall and observations "
                "that factor into public and private parts)"
            )
        other = self._key_at[player].setdefault(place, key)
        if other != key:
            raise GameDefinitionError(
                f"{self.name}: player {player}'s information sets {other!r} and {key!r} would be one private state "
                f"{label!r} in public state {list(public)!r} (the game needs perfect recall and observations "
                "that factor into public and private parts)"
            )


class _Frontier(NamedTuple):
    """A non-terminal history of the current length, as :class:`_CommonKnowledge` tracks it."""

    state: pyspiel.State
    history: tuple[int, ...]
    public: int  # public state (component) id
    info: tuple[str, str]  # both players' information-state strings
    labels: tuple[str, str]


class _CommonKnowledge:
    """Derives observations from information-state strings, one history length at a time.

    Expanding length L to L+1 links the children that share a player's information-state
    string (union-find); the linked groups are the public states. Children whose parents
    lie in different public states may not be linked: that would be a player forgetting
    what she knew.
    """

    def __init__(self, game: OpenSpielGame):
        self.game = game
        root = game.os_game.new_initial_state()
        self.public_key: list[tuple[str, ...]] = [()]  # by public state id
        self.length = 0
        self.frontier = [] if root.is_terminal() else [_Frontier(root, (), 0, self._knows(root, None, -1), ("", ""))]

    def _knows(self, s: pyspiel.State, parent: _Frontier | None, action: int) -> tuple[str, str]:
        """What each player knows at ``s``: her information-state string, or (acting-only games,
        where she does not act) what she knew at ``parent`` and the action she took there."""
        if not self.game.acting_only:
            return _infos(self.game, s)
        actor = s.current_player()
        out = []
        for p in (0, 1):
            if actor == p:
                out.append(_info(self.game, s, p))
            elif parent is None:
                out.append("")
            elif parent.state.current_player() == p:
                out.append(f"{parent.info[p]}\x1f{action}")
            else:
                out.append(parent.info[p])
        return out[0], out[1]

    def _shown(self, c: pyspiel.State, node: _Frontier, action: int, p: int, info: str) -> str:
        """Player ``p``'s private observation where the public state does not fix what she knows now."""
        if not self.game.acting_only or c.current_player() == p:
            return info
        if node.state.current_player() == p:  # her own move
            return node.state.action_to_string(p, action)
        return ""

    def grow_to(self, length: int) -> None:
        while self.length < length and self.frontier:
            self._grow()

    def _grow(self) -> None:
        game, parents = self.game, self.frontier
        kids, owner, acts = [], [], []
        for k, node in enumerate(parents):
            s = node.state
            for a in [a for a, _ in s.chance_outcomes()] if s.is_chance_node() else s.legal_actions():
                kids.append(s.child(a))
                owner.append(k)
                acts.append(a)
        infos = [None if c.is_terminal() else self._knows(c, parents[owner[j]], acts[j]) for j, c in enumerate(kids)]

        # link children that a player cannot tell apart; terminal ones by parent public state and action
        ends_or_knows = [[("end", parents[owner[j]].public, acts[j])] if info is None else [(0, info[0]), (1, info[1])]
                         for j, info in enumerate(infos)]
        comp_of = [0] * len(kids)
        taken: dict[int, set[str]] = {}
        for js in linked_groups(ends_or_knows):
            parent_publics = {parents[owner[j]].public for j in js}
            if len(parent_publics) > 1:
                self._forgets(js, owner, parents)
            parent_public = parent_publics.pop()
            s, a = parents[owner[js[0]]].state, acts[js[0]]
            if all(acts[j] == a for j in js):
                base = s.action_to_string(s.current_player(), a)
            else:
                base = "" if s.is_chance_node() else f"p{s.current_player()}"
            name = unique_name(base, taken.setdefault(parent_public, set()))
            comp = len(self.public_key)
            self.public_key.append(self.public_key[parent_public] + (name,))
            for j in js:
                comp_of[j] = comp

        # a private observation is needed where (her previous string, public state) does not fix her new one
        after: tuple[dict[tuple[str, int], set[str]], dict[tuple[str, int], set[str]]] = ({}, {})
        for j, info in enumerate(infos):
            if info is not None:
                before = parents[owner[j]].info
                for p in (0, 1):
                    after[p].setdefault((before[p], comp_of[j]), set()).add(info[p])

        frontier = []
        for j, (c, info) in enumerate(zip(kids, infos)):
            node, comp = parents[owner[j]], comp_of[j]
            public = self.public_key[comp]
            history = node.history + (acts[j],)
            if info is None:
                game._obs[history] = (public[-1], "", "")
                continue
            o0 = "" if len(after[0][(node.info[0], comp)]) == 1 else self._shown(c, node, acts[j], 0, info[0])
            o1 = "" if len(after[1][(node.info[1], comp)]) == 1 else self._shown(c, node, acts[j], 1, info[1])
            game._obs[history] = (public[-1], o0, o1)
            labels = (join_label(node.labels[0], o0), join_label(node.labels[1], o1))
            p = c.current_player()
            if p in (0, 1):
                game._remember_at(p, info[p], public, labels[p])
            frontier.append(_Frontier(c, history, comp, info, labels))
        self.frontier = frontier
        self.length += 1

    def _forgets(self, js: list[int], owner: list[int], parents: list[_Frontier]) -> None:
        by_public = {parents[owner[j]].public: parents[owner[j]].history for j in js}
        a, b = list(by_public.values())[:2]
        raise GameDefinitionError(
            f"{self.game.name}: after histories {list(a)} and {list(b)} a player can no longer tell apart states "
            "she could tell apart before (perfect recall is required)"
        )


def _infos(game: OpenSpielGame, s: pyspiel.State) -> tuple[str, str]:
    return (_info(game, s, 0), _info(game, s, 1))


def _info(game: OpenSpielGame, s: pyspiel.State, player: int) -> str:
    try:
        return str(s.information_state_string(player))
    except Exception as exc:  # pyspiel raises its own error types for unsupported queries
        raise GameDefinitionError(
            f"{game.name}: OpenSpiel gives no information-state string at history {s.history()} ({exc}); "
            "the adapter needs one at every non-terminal state"
        ) from None


def _convert(name: str, key: str, value: Any, default: Any) -> Any:
    """``value`` as the type of OpenSpiel's ``default`` (strings come from the command line).

    Parameters without a known default become int, float or bool when they look like one.
    """
    if isinstance(default, bool) or (default is None and isinstance(value, str) and value.lower() in ("true", "false")):
        text = str(value).strip().lower()
        if text in ("1", "true", "yes"):
            return True
        if text in ("0", "false", "no"):
            return False
    elif isinstance(default, float) and isinstance(value, (int, str)):
        try:
            return float(value)
        except ValueError:
            pass
    elif isinstance(default, int) and isinstance(value, str):
        try:
            return int(value)
        except ValueError:
            pass
    elif isinstance(default, str) or not isinstance(value, str):
        return value
    else:
        for parse in (int, float):
            try:
                return parse(value)
            except ValueError:
                pass
        return value
    raise GameDefinitionError(
        f"openspiel:{name}: parameter {key}={value!r} is not a valid {type(default).__name__} (default is {default!r})"
    )


__all__ = ["ACTING_STRINGS_ONLY", "INSTALL_HINT", "OpenSpielGame", "OpenSpielState", "import_pyspiel", "join_label"]
