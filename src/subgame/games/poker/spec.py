"""The parametric poker family: deck, deal, betting structure.

One frozen :class:`PokerSpec` describes Kuhn, Leduc, no-limit Leduc and hold'em variants.
Validation happens here, at construction, with messages that name the bad parameter.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from math import comb

from ...errors import GameDefinitionError


@dataclass(frozen=True)
class PokerSpec:
    """Rules of a two-player poker game.

    Attributes:
        num_ranks, num_suits: the deck (cards ``rank * num_suits + suit``).
        hole_cards: private cards dealt to each player.
        board_cards: public cards dealt at the start of each betting round; its length is
            the number of rounds.
        betting: ``"limit"`` or ``"nolimit"``.
        ante: chips each player puts in before the deal.
        blinds: forced bets of player 0 and player 1 in the first round.
        raise_sizes, max_raises: limit betting, per round: the fixed raise and the cap on
            bets plus raises.
        stack: no-limit: each player's chips, ante and blinds included.
        bet_fractions: no-limit: raise sizes as fractions of the pot after calling.
        all_in: no-limit: whether all-in is always an action (where a pot fraction reaches
            the stack, that bet is the all-in, listed or not).
        first_player: who acts first in each round.
        board: public cards known before the game starts, dealt in no chance event: the
            board of a subgame that starts at a public state of a bigger game. They count
            toward ``board_cards[0]``.
        raise_cap: no-limit: the most bets and raises in one round (0: no cap).
        round_bet_fractions: no-limit: the pot fractions of each round, replacing
            ``bet_fractions`` (empty: ``bet_fractions`` in every round).
        round_raise_caps: no-limit: the cap of each round, replacing ``raise_cap`` (empty:
            ``raise_cap`` in every round; 0: no cap in that round).
        start: betting actions (ids as :class:`PokerGame` numbers them) taken before the
            game begins, right after the deal: the game is then the part of the game without
            them that starts at that public state (checked by :class:`PokerGame`).
    """

    num_ranks: int = 3
    num_suits: int = 2
    hole_cards: int = 1
    board_cards: tuple[int, ...] = (0, 1)
    betting: str = "limit"
    ante: int = 1
    blinds: tuple[int, int] = (0, 0)
    raise_sizes: tuple[int, ...] = (2, 4)
    max_raises: tuple[int, ...] = (2, 2)
    stack: int = 0
    bet_fractions: tuple[float, ...] = field(default=(0.5, 1.0))
    all_in: bool = True
    first_player: tuple[int, ...] = (0, 0)
    board: tuple[int, ...] = ()
    raise_cap: int = 0
    round_bet_fractions: tuple[tuple[float, ...], ...] = ()
    round_raise_caps: tuple[int, ...] = ()
    start: tuple[int, ...] = ()

    def __post_init__(self) -> None:
        def bad(msg: str) -> GameDefinitionError:
            return GameDefinitionError(f"poker: {msg}")

        if self.num_ranks < 1 or self.num_suits < 1:
            raise bad(f"the deck needs at least one rank and one suit, got num_ranks={self.num_ranks}, num_suits={self.num_suits}")
        if self.hole_cards < 1:
            raise bad(f"hole_cards must be at least 1, got {self.hole_cards}")
        rounds = len(self.board_cards)
        if rounds < 1:
            raise bad("board_cards needs one entry per betting round (use (0,) for one round without a board)")
        if any(b < 0 for b in self.board_cards):
            raise bad(f"board_cards must be non-negative, got {self.board_cards}")
        dealt = 2 * self.hole_cards + sum(self.board_cards)
        if dealt > self.deck_size:
            raise bad(
                f"the deal needs {dealt} cards (2×{self.hole_cards} hole + {sum(self.board_cards)} board) "
                f"but the deck has only {self.deck_size} ({self.num_ranks} ranks × {self.num_suits} suits)"
            )
        if len(self.blinds) != 2:
            raise bad(f"blinds needs one entry per player (two, e.g. 0,0 or 1,2), got {self.blinds}")
        if self.betting not in ("limit", "nolimit"):
            raise bad(f"betting must be 'limit' or 'nolimit', got {self.betting!r}")
        if self.ante < 0 or min(self.blinds) < 0:
            raise bad(f"ante and blinds must be non-negative, got ante={self.ante}, blinds={self.blinds}")
        if self.ante == 0 and max(self.blinds) == 0:
            raise bad("the game needs an ante or blinds, otherwise nobody has a reason to bet")
        if len(self.first_player) != rounds or any(p not in (0, 1) for p in self.first_player):
            raise bad(f"first_player needs one entry (0 or 1) per round, got {self.first_player} for {rounds} rounds")
        if self.betting == "limit":
            if len(self.raise_sizes) != rounds or len(self.max_raises) != rounds:
                raise bad(f"limit betting needs raise_sizes and max_raises per round ({rounds} rounds), got {self.raise_sizes} and {self.max_raises}")
            if any(r <= 0 for r in self.raise_sizes) or any(m < 0 for m in self.max_raises):
                raise bad(f"raise sizes must be positive and raise caps non-negative, got {self.raise_sizes}, {self.max_raises}")
            if self.stack < 0:
                raise bad(f"stack must be non-negative (0 means unlimited in limit games), got {self.stack}")
            if self.raise_cap or self.round_bet_fractions or self.round_raise_caps:
                raise bad("raise_cap, round_bet_fractions and round_raise_caps are no-limit parameters; limit games use max_raises")
        else:
            if self.stack <= 0:
                raise bad(f"no-limit betting needs a positive stack, got stack={self.stack}")
            if self.stack < self.ante + max(self.blinds):
                raise bad(f"stack {self.stack} is smaller than ante plus blind ({self.ante + max(self.blinds)})")
            if any(f <= 0 for f in self.bet_fractions):
                raise bad(f"bet fractions must be positive pot fractions, got {self.bet_fractions}")
            if not self.bet_fractions and not self.all_in:
                raise bad("no-limit betting needs at least one bet fraction or all_in=True")
            if self.raise_cap < 0:
                raise bad(f"raise_cap must be non-negative (0: no cap), got {self.raise_cap}")
            if self.round_raise_caps:
                caps = self.round_raise_caps
                if len(caps) != rounds or any(float(c) != int(c) or c < 0 for c in caps):
                    raise bad(f"round_raise_caps needs one whole, non-negative cap per round ({rounds}; 0: no cap), got {caps}")
                object.__setattr__(self, "round_raise_caps", tuple(int(c) for c in caps))  # 1,3 read as floats: one game
            if self.round_bet_fractions:
                if len(self.round_bet_fractions) != rounds:
                    raise bad(f"round_bet_fractions needs one tuple of pot fractions per round ({rounds}), "
                              f"got {len(self.round_bet_fractions)}")
                if any(f <= 0 for fs in self.round_bet_fractions for f in fs):
                    raise bad(f"bet fractions must be positive pot fractions, got {self.round_bet_fractions}")
                if not self.all_in and not all(self.round_bet_fractions):
                    raise bad("a round without bet fractions needs all_in=True")
        if len(set(self.board)) != len(self.board) or any(not 0 <= c < self.deck_size for c in self.board):
            raise bad(f"board {list(self.board)} must be distinct cards of the deck (0..{self.deck_size - 1})")
        if any(isinstance(a, bool) or not isinstance(a, int) or a < 1 for a in self.start):
            raise bad(f"start must be betting action ids (1: check/call, 2 and up: bets and raises), got {list(self.start)}")
        if len(self.board) > self.board_cards[0]:
            raise bad(f"board {list(self.board)} has {len(self.board)} cards but the first round has only "
                      f"{self.board_cards[0]} (board_cards={self.board_cards})")

    @property
    def deck_size(self) -> int:
        return self.num_ranks * self.num_suits

    @property
    def num_rounds(self) -> int:
        return len(self.board_cards)

    def fractions(self, rnd: int) -> tuple[float, ...]:
        """No-limit: the pot fractions bettable in round ``rnd``."""
        return self.round_bet_fractions[rnd] if self.round_bet_fractions else self.bet_fractions

    def cap(self, rnd: int) -> int:
        """No-limit: the most bets and raises in round ``rnd`` (0: no cap)."""
        return self.round_raise_caps[rnd] if self.round_raise_caps else self.raise_cap

    @property
    def num_hands(self) -> int:
        """Number of distinct hole-card combinations of one player."""
        return comb(self.deck_size, self.hole_cards)

    def max_contribution(self) -> int:
        """The most chips one player can put in the pot."""
        if self.betting == "nolimit" or self.stack > 0:
            return self.stack
        return self.ante + max(self.blinds) + sum(r * m for r, m in zip(self.raise_sizes, self.max_raises))


KUHN = PokerSpec(num_ranks=3, num_suits=1, hole_cards=1, board_cards=(0,), raise_sizes=(1,), max_raises=(1,), first_player=(0,))
LEDUC = PokerSpec()
LEDUC_NOLIMIT = PokerSpec(betting="nolimit", stack=20, bet_fractions=(0.5, 1.0), all_in=True)
