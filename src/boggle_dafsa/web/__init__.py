"""The web face of boggle-dafsa (extra ``[web]``): a FastAPI app served by uvicorn.

:func:`boggle_dafsa.web.app.create_app` builds the application: the Solve, Play and
Rooms pages (plain HTML in ``pages/``, each page's ``<main>`` set in the head and header
they share; CSS and JavaScript modules in ``static/``), the JSON API under ``/api/`` and
the rooms' WebSocket under ``/ws/``, each page group's routes from a module of its own.
Nothing here is imported by the rest of the package, so the command line never pays for FastAPI.
"""
