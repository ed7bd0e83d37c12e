"""File safety: reading within bounds (``limits``), private folders for caches and stores
(``folders``), and temporary files removed even after SIGKILL (``reaper``)."""
