// Rooms: open a room, share its link, play the server's grid on the server's clock over a
// WebSocket; at the end, everybody sees the table where shared words score 0.
import { Board, formatClock } from "./board.js";
import { api, bonusValue, fillBonus, fillDice, fillDictionaries, showError, WordTable } from "./common.js";
import { showReview } from "./review.js";

const $ = (id) => document.getElementById(id);
const match = location.pathname.match(/^\/rooms\/([A-Za-z0-9_-]+)\/?$/);
const roomId = match ? match[1] : null;
const storageKey = `boggle-dafsa:room:${roomId}`;

let socket = null;
let joined = false;
let fatal = false;
let board = null;
let boardGrid = null;
let deadline = null;
let ticker = null;
let status = null;
let myName = null;
let round = null;
let review = null; // one's own review of the game over (the state's), shown with the results
let result = null; // the game over: its table and solution
let dictionary = null;

function stored() {
  try {
    return JSON.parse(localStorage.getItem(storageKey) || "null");
  } catch (error) {
    return null;
  }
}

function send(message) {
  if (socket && socket.readyState === WebSocket.OPEN) socket.send(JSON.stringify(message));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss:" : "ws:";
  socket = new WebSocket(`${scheme}//${location.host}/ws/rooms/${roomId}`);
  socket.addEventListener("open", () => {
    const me = stored();
    if (me) send({ type: "join", name: me.name, token: me.token });
    else $("join").hidden = false;
  });
  socket.addEventListener("message", (event) => {
    let message;
    try {
      message = JSON.parse(event.data);
    } catch (error) {
      return;
    }
    receive(message);
  });
  socket.addEventListener("close", () => {
    joined = false;
    if (!fatal) setTimeout(connect, 1000); // the room lives on the server: come back to it
  });
}

function receive(message) {
  switch (message.type) {
    case "joined":
      joined = true;
      myName = message.name;
      localStorage.setItem(storageKey, JSON.stringify({ name: message.name, token: message.token }));
      $("join").hidden = true;
      $("you").hidden = false;
      showError($("error"), null);
      break;
    case "state":
      showState(message);
      break;
    case "verdict":
      showVerdict(message);
      $("score").textContent = String(message.score);
      break;
    case "over":
      showResults(message);
      break;
    case "hint":
      showHint(message);
      break;
    case "error":
      showError($("error"), message.error);
      if (message.fatal) fatal = true;
      if (!joined && !message.fatal) {
        localStorage.removeItem(storageKey); // a name taken, a token refused: ask again
        $("join").hidden = false;
      }
      break;
    default:
      break;
  }
}

function showState(state) {
  if (round !== null && state.round !== round) newRound();
  round = state.round;
  // The invitation folds once the game starts (the board comes up on a phone), and opens
  // again after it; only when the status changes, so a player's own click stands.
  if (state.status !== status) {
    $("invite").open = state.status !== "playing";
    // The game's layout from the top (on a phone: the clock, the score and the board in view),
    // wherever the page was when Start was pressed.
    if (state.status === "playing" && status !== null) window.scrollTo(0, 0);
  }
  status = state.status;
  dictionary = state.dictionary;
  document.body.dataset.status = state.status;
  const bonus = state.bonus ? `, bonus words of ${state.bonus}` : "";
  const what = `${state.title}, ${state.dictionary} dictionary${bonus}, words of ${state.min_length}+ letters, ${state.seconds} s`;
  const label = { waiting: "Waiting for a player to start", playing: "Playing", over: "Game over" }[state.status];
  $("status").textContent = `${label} — ${what}`;
  $("players").replaceChildren(...state.players.map((player) => {
    const item = document.createElement("li");
    item.textContent = `${player.name}: ${player.words} word${player.words === 1 ? "" : "s"}${player.connected ? "" : " (away)"}`;
    if (!player.connected) item.className = "away";
    return item;
  }));
  if (state.faces && state.grid !== boardGrid) {
    board = new Board($("board"), state.shape, state.faces);
    boardGrid = state.grid;
  }
  if (board) {
    const playing = state.status === "playing" && joined;
    board.onTrace = playing ? (traced) => { $("word").value = traced; } : null;
    board.onSubmit = playing ? (word) => submit(word) : null;
    board.onType = playing ? (letter) => { $("word").value += letter; $("word").focus(); } : null;
  }
  $("start").hidden = !(joined && state.status === "waiting");
  $("next").hidden = !(joined && state.status === "over");
  $("ask-hint").hidden = !(joined && state.hints && state.status === "playing");
  if (state.status !== "playing") $("hint-text").hidden = true;
  $("entry").hidden = !(joined && state.status === "playing");
  clearInterval(ticker);
  if (state.status === "playing" && state.remaining !== null) {
    deadline = Date.now() + state.remaining * 1000;
    tick();
    ticker = setInterval(tick, 250);
  } else {
    $("clock").textContent = state.status === "over" ? "0:00" : formatClock(state.seconds);
  }
  if (state.you && state.you.review) {
    review = state.you.review;
    showMyReview();
  }
  if (state.you) {
    if (state.status !== "over") $("score").textContent = String(state.you.score); // then: the final table's
    if (!$("verdicts").childElementCount) {
      // Back after a reload: the words found so far.
      for (const word of [...state.you.found].reverse()) showVerdict({ ...word, accepted: true, quiet: true });
    }
  }
}

/** A next round began: the page as for a new game, the players kept. */
function newRound() {
  $("verdicts").replaceChildren();
  $("results").hidden = true;
  $("review-box").hidden = true;
  review = null;
  result = null;
  $("score").textContent = "0";
  $("you").firstChild.textContent = "Your score: ";
  $("hint-text").hidden = true;
  $("board").replaceChildren();
  board = null;
  boardGrid = null;
}

function showHint(hint) {
  const parts = [];
  if (hint.letter) {
    parts.push(`A word of ${hint.letter.length} letters starts with ${hint.letter.first} (${hint.letter.points} points).`);
  } else {
    parts.push("You found every word!");
  }
  if (hint.cells && board) {
    parts.push("The numbers on the cells: words still to find that start there.");
    board.cells.forEach((cell, index) => { cell.dataset.hint = String(hint.cells[index]); });
  } else {
    parts.push(`Find ${Math.ceil(hint.cells_after * hint.total) - hint.found} more words for the cell counts.`);
  }
  $("hint-text").textContent = parts.join(" ");
  $("hint-text").hidden = false;
}

function tick() {
  const left = (deadline - Date.now()) / 1000;
  $("clock").textContent = formatClock(left);
  $("clock").classList.toggle("low", left <= 10);
}

function submit(raw) {
  raw = raw.trim();
  if (board && board.trail.length) board.resetTrail(); // a traced word sent with Enter or OK: its trail goes
  $("word").value = "";
  if (raw && status === "playing") send({ type: "word", word: raw });
}

function showVerdict(verdict) {
  const item = document.createElement("li");
  const shown = verdict.word || verdict.input;
  if (verdict.accepted) {
    item.className = "accepted";
    item.textContent = verdict.bonus ? `${shown}: bonus word` : `${shown}: +${verdict.points}`;
    if (verdict.path && board && !verdict.quiet) board.highlight(verdict.path);
  } else {
    item.className = "refused";
    item.textContent = `${shown}: ${verdict.reason}`;
  }
  $("verdicts").prepend(item);
}

/** One's own review of the game over, once both the state (the review) and the result (the paths) are in. */
function showMyReview() {
  if (!review || !result) return;
  const paths = new Map(result.solution.words.map((hit) => [hit.word, hit.path]));
  showReview($("review"), review, { paths, board, dictionary });
  $("review-box").hidden = false;
}

function showResults(over) {
  result = over;
  showMyReview();
  const sheet = result.sheet;
  const names = sheet.players.map((player) => player.name);
  const paths = new Map(result.solution.words.map((hit) => [hit.word, hit.path]));
  const point = (entry) => board && board.highlight(entry.path);
  const rows = sheet.table.map((row) => ({
    word: row.word,
    points: row.points,
    path: paths.get(row.word),
    extra: names.map((name) => (!row.found_by.includes(name) ? "·" : row.found_by.length > 1 ? "0 (=)" : String(row.points))),
  }));
  new WordTable($("table"), { onPoint: point, extraColumns: names }).show(rows);
  $("final").textContent = sheet.players.map((player) => `${player.name} ${player.score}`).join(" · ");
  $("winner").textContent = result.winner || "";
  const me = sheet.players.find((player) => player.name === myName);
  if (me) {
    $("you").firstChild.textContent = "Your final score: ";
    $("score").textContent = String(me.score);
  }
  const found = new Set(sheet.table.map((row) => row.word));
  const missed = result.solution.words.filter((hit) => !found.has(hit.word));
  new WordTable($("missed"), { onPoint: point }).show(missed.map((hit) => ({ word: hit.word, points: hit.points, path: hit.path })));
  $("results").hidden = false;
  $("entry").hidden = true;
}

async function lobby() {
  $("lobby").hidden = false;
  const params = new URLSearchParams(location.search);
  if (params.get("time")) $("seconds").value = params.get("time");
  const ready = Promise.all([
    fillDice($("dice"), params.get("dice")),
    fillDictionaries($("dict"), params.get("dict"), "the dice set's own"),
    fillBonus($("bonus"), null),
  ]);
  // Listening before the lists are filled: a click on a slow page would otherwise submit the
  // form itself (a reload, no room).
  $("create").addEventListener("submit", async (event) => {
    event.preventDefault();
    try {
      await ready;
      const room = await api("/api/rooms", {
        dice: $("dice").value, dict: $("dict").value || null, seconds: Number($("seconds").value), hints: $("hints").checked,
        bonus: bonusValue($("bonus")),
      });
      location.href = `/rooms/${room.room}`;
    } catch (error) {
      showError($("error"), error);
    }
  });
  await ready;
}

/** The room's link for others: with the server's network address when this page runs on the server itself. */
async function invite() {
  let link = `${location.origin}/rooms/${roomId}`;
  if (["localhost", "127.0.0.1", "[::1]", "0.0.0.0"].includes(location.hostname)) {
    try {
      const server = await api("/api/server");
      if (server.lan_url) link = `${server.lan_url}rooms/${roomId}`;
    } catch (error) {
      // the local link will do
    }
  }
  $("share").textContent = link;
  $("share").href = link;
  $("qr").src = `/api/qr?text=${encodeURIComponent(link)}`;
  $("qr").alt = `QR code of the room's link, ${link}, to open it on a phone`;
  $("qr").hidden = false;
}

function room() {
  $("room").hidden = false;
  $("room-id").textContent = roomId;
  invite();
  $("copy-link").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("share").textContent);
      $("copy-link").textContent = "Copied";
    } catch (error) {
      showError($("error"), "the browser refused to copy: select the link instead");
    }
  });
  $("next").addEventListener("click", () => send({ type: "next" }));
  $("ask-hint").addEventListener("click", () => send({ type: "hint" }));
  const me = stored();
  if (me) $("name").value = me.name;
  $("join").addEventListener("submit", (event) => {
    event.preventDefault();
    send({ type: "join", name: $("name").value, token: (stored() || {}).token || null });
  });
  $("start").addEventListener("click", () => send({ type: "start" }));
  $("entry").addEventListener("submit", (event) => {
    event.preventDefault();
    submit($("word").value);
  });
  connect();
}

if (roomId) room();
else lobby().catch((error) => showError($("error"), error));
document.body.dataset.ready = "true";
