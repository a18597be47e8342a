"""Blueprints for large poker games: card abstraction (hand buckets) and board-sampling CFR over them."""
