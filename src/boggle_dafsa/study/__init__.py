"""Word study: the cardbox quiz's library half (``boggle-dafsa quiz``).

- :mod:`.schedule`: Zyzzyva's cardbox schedule, pure (no clock, no file): a card's box
  after an answer and the day it is due again;
- :mod:`.history`: the cardboxes and every answer, in SQLite under the user's data folder
  (one writer at a time, each answer committed at once);
- :mod:`.session`: the questions (alphagram groups), judging typed answers, and the loop
  that asks the due questions over streams it is given.
"""
