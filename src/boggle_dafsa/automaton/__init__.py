"""The minimal DAFSA: building it (``builder``), its file format (``fileformat``), reading it (``reader``).

Import the submodules directly: readers need neither the builder nor the writer.
"""
