"""Searching boards: the best-board search (hill climb, anneal) and its Dask runner."""
