import numpy as np
import pytest

from subgame.agents import CallAgent, RandomAgent, ResolvingAgent, StrategyAgent, TranslationAgent, load_agent
from subgame.agents.match import exact_value, play_match
from subgame.agents.resolving import blueprint_source, cfr_d_source
from subgame.decompose import CFRDConfig, ProcessExecutor, reconstruct, save_cfr_d, solve_cfr_d
from subgame.errors import SubgameError
from subgame.games import load_game
from subgame.resolving import resolve_all, translation_strategy
from subgame.solve.cfr import CFR_PLUS, CFRSolver
from subgame.solve.driver import Budget
from subgame.strategy import Strategy
from subgame.tree.compile import compile_game
from subgame.tree.public_tree import infoset_index, infoset_keys
from tests.agents.views import all_views
from tests.toy_games import SMALL, small_game


def _acts_as_its_behaviour(agent, game, tree, every=1):
    """The agent's act() at every ``every``-th view of each seat is its behaviour strategy's row."""
    strategy = agent.behaviour(tree)
    index = [infoset_index(tree, p) for p in (0, 1)]
    for p in (0, 1):
        pa = tree.players[p]
        for view in all_views(game, p)[::every]:
            row = index[p][(view.public_key, view.private_label)]
            want = {int(pa.action_ids[row, k]): strategy.probs[p][row, k] for k in np.flatnonzero(pa.legal[row])}
            got = agent.act(view).checked(view).probs
            assert {a: got.get(a, 0.0) for a in want} == pytest.approx(want, abs=1e-12)
            assert set(got) <= set(want)


@pytest.mark.slow
def test_call_agent_behaviour_is_its_play():
    game = load_game("poker", **SMALL)
    _acts_as_its_behaviour(CallAgent(), game, compile_game(game), every=3)


@pytest.fixture(scope="module")
def leduc_cfr_d(tmp_path_factory):
    game = load_game("leduc")
    solution = solve_cfr_d(game, 30, config=CFRDConfig(subgame_iterations=30, batch=100, cached_chunks=None))
    return game, compile_game(game), solution, save_cfr_d(tmp_path_factory.mktemp("cfrd") / "leduc_cfrd.npz", solution)


@pytest.mark.slow
def test_cfr_d_agent_plays_the_trunk_then_re_solves_each_subgame_once(leduc_cfr_d):
    game, tree, solution, _ = leduc_cfr_d
    agent = ResolvingAgent(cfr_d_source(solution), Budget(iterations=40))
    rebuilt = reconstruct(solution, iterations=40, full_tree=tree).strategy
    behaviour = agent.behaviour(tree)
    for p in (0, 1):  # the same re-solves as the reconstruction (one forest there, one subgame here)
        assert np.allclose(behaviour.probs[p], rebuilt.probs[p], atol=1e-9)
    solved = len(agent._cache)
    assert solved == 2 * len(agent.source.roots)
    _acts_as_its_behaviour(agent, game, tree, every=3)
    assert len(agent._cache) == solved  # play is answered from the cache
    serial = play_match(game, tree, (agent, RandomAgent()), 12, seed=2, chunk=3)
    with ProcessExecutor(2) as executor:  # the agent, its cache and its source travel to the workers
        parallel = play_match(game, tree, (agent, RandomAgent()), 12, seed=2, chunk=3, executor=executor)
    assert np.array_equal(serial.per_deal, parallel.per_deal)
    assert serial.exact == pytest.approx(exact_value(tree, rebuilt, Strategy.uniform(tree)), abs=1e-9)


@pytest.mark.slow
def test_blueprint_re_solving_agent_is_resolve_all(leduc_tree):
    game = load_game("leduc")
    blueprint = CFRSolver(leduc_tree, CFR_PLUS).run(50).average_strategy()
    agent = ResolvingAgent(blueprint_source(game, leduc_tree, blueprint, "maxmargin"), Budget(iterations=30))
    expected = resolve_all(game, leduc_tree, blueprint, "maxmargin", iterations=30)
    behaviour = agent.behaviour(leduc_tree)
    for p in (0, 1):
        assert np.allclose(behaviour.probs[p], expected.probs[p], atol=1e-9)
    _acts_as_its_behaviour(agent, game, leduc_tree, every=5)


@pytest.fixture(scope="module")
def small_nolimit():
    return small_game(60)


@pytest.mark.slow
def test_translation_agent_plays_pseudo_harmonic_translation(small_nolimit):
    game, tree, abstraction, blueprint = small_nolimit
    abstract_game = abstraction.abstract_game
    abstract_tree = compile_game(abstract_game)
    # the blueprint as a strategy of the abstract game itself (its own action ids), matched by names
    index = infoset_index(tree, 0), infoset_index(tree, 1)
    probs = []
    for p in (0, 1):
        aa, pa = abstract_tree.players[p], tree.players[p]
        x = np.zeros(aa.legal.shape)
        for i, key in enumerate(infoset_keys(abstract_tree, p)):
            r = index[p][key]
            slot = {name: k for k, name in enumerate(pa.action_names[r])}
            x[i, : len(aa.action_names[i])] = [blueprint.probs[p][r, slot[n]] for n in aa.action_names[i]]
        probs.append(x)
    agent = TranslationAgent(game, tree, abstract_game, abstract_tree, Strategy(abstract_tree.game_id, (probs[0], probs[1])))
    behaviour = agent.behaviour(tree)
    for p in (0, 1):
        assert np.allclose(behaviour.probs[p], translation_strategy(game, tree, abstraction, blueprint, p), atol=1e-12)
    _acts_as_its_behaviour(agent, game, tree, every=11)
    result = play_match(game, tree, (agent, RandomAgent()), 30, seed=1, aivat=False)
    assert result.exact == pytest.approx(exact_value(tree, behaviour, Strategy.uniform(tree)))


def test_load_agent_specs(tmp_path, leduc_cfr_d, small_nolimit):
    game, tree, _, cfr_d_file = leduc_cfr_d
    agent = load_agent(f"cfr-d:{cfr_d_file}:25", tree, game)
    assert isinstance(agent, ResolvingAgent) and agent.budget == Budget(iterations=25) and agent.name.startswith("cfr-d")
    assert load_agent(f"cfr-d:{cfr_d_file}", tree, game).budget.iterations == 200
    blueprint = Strategy.uniform(tree).save(tmp_path / "u.npz", tree)
    agent = load_agent(f"resolve:{blueprint}:reach-maxmargin:10", tree, game)
    assert isinstance(agent, ResolvingAgent) and agent.source.label == "reach-maxmargin"
    with pytest.raises(SubgameError, match="cfr-d:"):
        load_agent(str(cfr_d_file), tree, game)
    with pytest.raises(SubgameError, match="needs the game"):
        load_agent(f"cfr-d:{cfr_d_file}", tree)
    with pytest.raises(SubgameError, match="METHOD"):
        load_agent("resolve:" + str(blueprint), tree, game)
    with pytest.raises(SubgameError, match="unknown subgame-solving method"):
        load_agent(f"resolve:{blueprint}:nope", tree, game)
    # a strategy file of a bet abstraction plays the real game by translation
    real, real_tree = small_nolimit[0], small_nolimit[1]
    params = {**{k: ",".join(map(str, v)) if isinstance(v, tuple) else str(v) for k, v in SMALL.items()}, "bet_fractions": "0.5,1.0"}
    abstract = load_game("poker", **params)
    abstract_tree = compile_game(abstract)
    file = Strategy(abstract_tree.game_id, Strategy.uniform(abstract_tree).probs, {"game": "poker", "params": params}).save(
        tmp_path / "abstract.npz", abstract_tree)
    assert isinstance(load_agent(str(file), real_tree, real), TranslationAgent)
    with pytest.raises(SubgameError, match="strategy is of game"):
        load_agent(str(file), tree, game)
    assert isinstance(load_agent("random", tree), RandomAgent) and isinstance(load_agent(str(blueprint), tree), StrategyAgent)
