"""The dictionary verbs' library half: names to files and the cache of compiled lists
(``resolve``), building a dictionary from a word list (``build``), checking one (``verify``)."""
