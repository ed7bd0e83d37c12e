// The arena: everybody plays the board under way (the server's, a new one every N minutes),
// joins any time and plays until it ends; then the board's table (rank, percentile), one's
// own report and review, and the rolling boards of today and the week. The name and the
// secret token the server gave are kept in localStorage: a reload takes the game back.
import { Board, formatClock } from "./board.js";
import { api, showError } from "./common.js";
import { showReview } from "./review.js";

const $ = (id) => document.getElementById(id);
const KEY = "boggle-dafsa-arena";
// Seconds after a board's end before its results are final (the server's grace).
const GRACE = 2.5;

let arena = null; // the board under way, from GET /api/arena
let offset = 0; // the server's clock minus this page's, in ms
let board = null;
let ticker = null;
let over = false;
let queue = Promise.resolve();

function me() {
  try {
    const kept = JSON.parse(localStorage.getItem(KEY) || "null");
    return kept && typeof kept.token === "string" && typeof kept.name === "string" ? kept : null;
  } catch (error) {
    return null;
  }
}

function now() {
  return Date.now() + offset;
}

function every(seconds) {
  if (seconds % 60) return `${seconds} seconds`;
  return seconds === 60 ? "minute" : `${seconds / 60} minutes`;
}

async function load() {
  const asked = Date.now();
  arena = await api("/api/arena");
  offset = arena.now * 1000 - (asked + Date.now()) / 2;
  over = false;
  $("every").textContent = every(arena.seconds);
  const bonus = arena.bonus ? `; words of ${arena.bonus} that ${arena.dictionary} lacks are bonus words (counted, not scored)` : "";
  $("rules").textContent = `${arena.title}, ${arena.dictionary}, words of ${arena.min_length} letters or more${bonus}.`;
  board = new Board($("board"), arena.shape, arena.faces);
  board.onTrace = (traced) => { $("word").value = traced; };
  board.onSubmit = (word) => submit(word);
  board.onType = (letter) => { $("word").value += letter; $("word").focus(); };
  $("verdicts").replaceChildren();
  $("score").textContent = "0";
  $("bonus-count").textContent = "";
  await joined();
  clearInterval(ticker);
  tick();
  ticker = setInterval(tick, 250);
}

/** The player's state: the join form, or their game on the board under way (taken back on a reload). */
async function joined() {
  const player = me();
  $("join").hidden = player !== null;
  $("who").hidden = player === null;
  $("entry").hidden = player === null;
  if (!player) {
    document.body.dataset.state = "waiting";
    return;
  }
  $("me").textContent = player.name;
  document.body.dataset.state = "playing";
  try {
    const mine = await api("/api/arena/mine", { token: player.token, slot: arena.slot });
    for (const entry of mine.found) showVerdict({ word: entry.word, accepted: true, points: entry.points, bonus: false });
    for (const word of mine.bonus) showVerdict({ word, accepted: true, points: 0, bonus: true });
    showScore(mine.score, mine.bonus.length);
  } catch (error) {
    if (/not a player/.test(String(error.message))) {
      localStorage.removeItem(KEY); // a token of another server (or of a wiped one): join again
      return joined();
    }
    throw error;
  }
}

async function join(event) {
  event.preventDefault();
  showError($("error"), null);
  try {
    const answer = await api("/api/arena/join", { name: $("name").value });
    localStorage.setItem(KEY, JSON.stringify({ name: answer.name, token: answer.token }));
    await joined();
    $("word").focus();
  } catch (error) {
    showError($("error"), error);
  }
}

function showScore(score, bonus) {
  $("score").textContent = String(score);
  $("bonus-count").textContent = bonus ? ` (+${bonus} bonus)` : "";
}

function tick() {
  const left = (arena.ends * 1000 - now()) / 1000;
  $("clock").textContent = formatClock(left);
  $("clock").classList.toggle("low", left <= 10);
  if (left <= 0 && !over) finish().catch((error) => showError($("error"), error));
}

function submit(raw) {
  raw = raw.trim();
  if (board && board.trail.length) board.resetTrail();
  $("word").value = "";
  const player = me();
  if (!raw || over || !player) return;
  const slot = arena.slot;
  queue = queue.then(async () => {
    try {
      const verdict = await api("/api/arena/word", { token: player.token, slot, word: raw });
      showVerdict(verdict);
      showScore(verdict.score, verdict.bonus_found);
    } catch (error) {
      showVerdict({ word: raw, accepted: false, reason: String(error.message || error) });
    }
  });
}

function showVerdict(verdict) {
  const item = document.createElement("li");
  const shown = verdict.word || verdict.input;
  if (verdict.accepted) {
    item.className = "accepted";
    item.textContent = verdict.bonus ? `${shown}: bonus word` : `${shown}: +${verdict.points}`;
    if (verdict.path) board.highlight(verdict.path);
  } else {
    item.className = "refused";
    item.textContent = `${shown}: ${verdict.reason}`;
  }
  $("verdicts").prepend(item);
}

function percent(value) {
  return `${Number.isInteger(value) ? value : value.toFixed(1)}%`;
}

/** A table of places: rank, name, score, words (and games on a rolling board); one's own row marked. */
function placesTable(places, mine, rolling) {
  const table = document.createElement("table");
  table.className = "words places";
  const head = table.createTHead().insertRow();
  const columns = [["rank", "num"], ["player", ""], [rolling ? "points" : "score", "num"], ["words", "num"], ...(rolling ? [["games", "num"]] : []), ["beat", "num"]];
  for (const [label, kind] of columns) {
    const th = document.createElement("th");
    th.textContent = label;
    th.className = kind;
    th.scope = "col";
    head.append(th);
  }
  const body = table.createTBody();
  for (const place of places) {
    const row = body.insertRow();
    if (mine && place.name === mine) {
      row.className = "you";
      row.setAttribute("aria-current", "true");
    }
    const cells = [[place.rank, "num"], [place.name, ""], [place.score, "num"], [place.words, "num"], ...(rolling ? [[place.games, "num"]] : []), [percent(place.percentile), "num"]];
    for (const [text, kind] of cells) {
      const td = row.insertCell();
      td.textContent = String(text);
      if (kind) td.className = kind;
    }
  }
  if (!places.length) {
    const row = body.insertRow();
    const td = row.insertCell();
    td.colSpan = columns.length;
    td.textContent = "Nobody yet.";
  }
  return table;
}

/** The end of the board: the entry goes, and once the server's grace is over, the results. */
async function finish() {
  over = true;
  clearInterval(ticker);
  $("clock").textContent = "0:00";
  $("entry").hidden = true;
  board.onTrace = null;
  board.resetTrail();
  await queue;
  document.body.dataset.state = "over";
  $("results").hidden = false;
  $("place").textContent = "The board is over: the results are being counted…";
  await new Promise((resolve) => { setTimeout(resolve, Math.max(0, arena.ends * 1000 + GRACE * 1000 - now())); });
  const player = me();
  const results = await api("/api/arena/results", { slot: arena.slot, token: player ? player.token : null });
  showResults(results, player);
  await showBoards();
}

function showResults(results, player) {
  const players = `${results.players} player${results.players === 1 ? "" : "s"}`;
  if (results.you) {
    const others = results.players - 1;
    const beat = others ? `, better than ${percent(results.you.percentile)} of the other players` : "";
    $("place").textContent = `Rank ${results.you.rank} of ${players}${beat}: ${results.you.score} points.`;
  } else {
    $("place").textContent = `${players} on this board${player ? "; you found no word on it" : ""}.`;
  }
  $("table").replaceChildren(placesTable(results.table, player && player.name, false));
  if (results.report) {
    const report = results.report;
    const paths = new Map(results.solution.words.map((hit) => [hit.word, hit.path]));
    const bonus = report.bonus ? `; bonus words: ${report.bonus.found.length} of ${report.bonus.total}` : "";
    $("summary").textContent = `You found ${report.found.length} of ${report.total.words} words and ${report.score} of ${report.total.points} points${bonus}.`;
    showReview($("review"), report.review, { paths, board, dictionary: arena.dictionary });
  } else {
    $("summary").textContent = "";
    $("review").hidden = true;
  }
}

async function showBoards() {
  const player = me();
  const boards = await api("/api/arena/boards", { token: player ? player.token : null });
  for (const window of ["today", "week"]) {
    $(`board-${window}`).replaceChildren(placesTable(boards[window].table, player && player.name, true));
  }
}

async function main() {
  $("join").addEventListener("submit", join);
  $("entry").addEventListener("submit", (event) => {
    event.preventDefault();
    submit($("word").value);
  });
  $("next").addEventListener("click", () => {
    $("results").hidden = true;
    load().then(() => $("word").focus()).catch((error) => showError($("error"), error));
  });
  try {
    await load();
    await showBoards();
  } catch (error) {
    showError($("error"), error);
  }
  document.body.dataset.ready = "true";
}

main();
