"""The Play page (``/play``, where the daily puzzle is played too) and ``/api/play``: a solo
game judged by the server, word by word, with the report and the solution at the end."""

from typing import Annotated, Any

from fastapi import Body, FastAPI
from fastapi.responses import JSONResponse
from pydantic import BaseModel, ConfigDict, Field, StringConstraints

from boggle_dafsa.game.clean import blocked_words
from boggle_dafsa.game.rounds import EndReason, Game
from boggle_dafsa.web.guard import bounded
from boggle_dafsa.web.payloads import report_payload, solution_payload, verdict_payload
from boggle_dafsa.web.settings import AUTO, BONUS_HELP, dice_set
from boggle_dafsa.web.site import MAX_SEED, page


class PlayRequest(BaseModel):
    """A solo game so far: its grid (dice set and seed) and every word submitted, in order."""

    dice: str = Field("fr", max_length=32, description="A dice set of `/api/dice`.")
    seed: int = Field(ge=0, le=MAX_SEED, description="The seed of the grid (`/api/roll` gives one).")
    model_config = ConfigDict(populate_by_name=True)

    dictionary: str | None = Field(
        None, alias="dict", max_length=64, description="A dictionary of `/api/dictionaries` (default: the dice set's)."
    )
    words: list[Annotated[str, StringConstraints(max_length=64)]] = Field(
        default_factory=list, max_length=1000, description="Every word submitted, in order, as typed."
    )
    end: bool = Field(False, description="True when the game is over: the answer adds the report and the solution.")
    time: float | None = Field(None, ge=0, le=86400, description="The time limit played, for the report.")
    clean: bool = Field(True, description="Leave the family-friendly blocklist out of the grid's words (docs/game.md).")
    bonus: str | None = Field(AUTO, max_length=64, description=BONUS_HELP)


def add_play_routes(app: FastAPI, html: str) -> None:
    """The Play page (``html``) and ``/api/play``."""
    catalog, limits = app.state.catalog, app.state.limits
    app.get("/play", include_in_schema=False)(page(html))

    @app.post("/api/play", summary="Judge the words of a solo game; with end, the report and the solution")
    def play(request: Annotated[PlayRequest, Body()]) -> JSONResponse:
        # On a worker thread (a plain def), under the solves' deadline.
        return bounded(limits.solve_seconds, lambda: judge_solo(request))

    def judge_solo(request: PlayRequest) -> JSONResponse:
        chosen = dice_set(request.dice)
        name, words = catalog.for_language(request.dictionary, chosen.language)

        blocked = blocked_words(name, chosen.language) if request.clean else frozenset()
        full = catalog.bonus_for(name, request.bonus)
        game = Game.from_dice(
            chosen,
            request.seed,
            words,
            dice=chosen.name,
            dictionary_spec=name,
            blocked=blocked,
            bonus=None if full is None else full[1],
            bonus_spec=None if full is None else full[0],
        )
        verdicts = [verdict_payload(game, game.submit(word)) for word in request.words]
        answer: dict[str, Any] = {
            "dice": chosen.name,
            "seed": request.seed,
            "dictionary": name,
            "bonus": None if full is None else full[0],
            "grid": str(game.grid),
            "shape": list(game.grid.shape),
            "faces": list(game.grid.faces),
            "scoring": chosen.scoring.name,
            "min_length": chosen.min_length,
            "score": game.score,
            "verdicts": verdicts,
        }
        if request.end:
            answer["report"] = report_payload(game.report(EndReason.TIME_UP, seconds=request.time))
            answer["solution"] = solution_payload(game.grid, game.hits)
        return JSONResponse(answer)
