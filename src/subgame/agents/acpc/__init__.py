"""The ACPC protocol: our agents at the competition's dealer, and a dealer of our own.

* :mod:`.protocol`: the text of the protocol (match states, actions, log lines).
* :mod:`.hand`: a hand of a :class:`~subgame.games.poker.game.PokerGame` as the protocol plays
  it (real bet sizes, off-tree raises) and the :class:`~subgame.agents.base.View` it shows.
* :mod:`.client`: :func:`play_match` connects an agent to a dealer.
* :mod:`.dealer`: :class:`Dealer` plays a match between two clients and logs it.
"""

from .client import ClientHand, ClientResult, play_match
from .dealer import Dealer, DealerConfig, HandRecord, MatchResult, deal
from .hand import Hand, OffTree, replay
from .protocol import VERSION, Action, Codec, Deck, LogHand, MatchState, ProtocolError, parse_log

__all__ = [
    "VERSION", "Action", "ClientHand", "ClientResult", "Codec", "Dealer", "DealerConfig", "Deck", "Hand", "HandRecord",
    "LogHand", "MatchResult", "MatchState", "OffTree", "ProtocolError", "deal", "parse_log", "play_match", "replay",
]
