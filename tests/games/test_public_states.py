"""Grouping children into public states by what the players know, and naming them apart."""

from subgame.games.public_states import linked_groups, unique_name


def test_linked_groups_join_through_any_shared_key_in_first_index_order():
    # 0 and 2 share "a", 2 and 3 share "c": one group though 0 and 3 share nothing; 1 alone
    keys = [["a"], ["b"], ["a", "c"], ["c"], []]
    assert linked_groups(keys) == [[0, 2, 3], [1], [4]]


def test_linked_groups_of_nothing():
    assert linked_groups([]) == []


def test_unique_name_numbers_repeats_from_two():
    used: set[str] = set()
    assert [unique_name("r", used) for _ in range(3)] == ["r", "r#2", "r#3"]
    assert unique_name("c", used) == "c"
    assert used == {"r", "r#2", "r#3", "c"}
