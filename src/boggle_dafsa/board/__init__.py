"""The board: grids (shapes, neighbours, syntax), dice sets, rules and scoring."""
