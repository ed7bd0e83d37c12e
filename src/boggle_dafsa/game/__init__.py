"""The game: rounds and players, the console loop, the live terminal game."""
