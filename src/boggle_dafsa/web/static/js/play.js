// The Play page: a timed solo game on a rolled grid (dice set and seed in the URL), each
// word judged by the server at once, then the report with every missed word and its path.
import { Board, formatClock } from "./board.js";
import { api, bonusValue, fillBonus, fillDice, fillDictionaries, setQuery, showError, WordTable } from "./common.js";
import { showReview } from "./review.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);
// /daily is this page in the daily mode: today's grid (UTC) for the dice set, 3 minutes,
// the result sent to the server at the end, and a text to share without spoilers. Fair
// play: Start asks the server for a start token (its clock, not this page's), the grid's
// words are not fetched before the end (no hints), the result is sent before the solution
// is asked for (a result sent after it does not count), and a day played is remembered
// (localStorage): a reload shows its result, not a fresh game.
const DAILY = location.pathname === "/daily";
let daily = null; // the puzzle, from /api/daily
let started = null; // daily: the start, from /api/daily/start ({ token, left, ... })

let board = null;
let words = []; // every word sent, as typed: the server replays them to judge the last one
let queue = Promise.resolve(); // words are judged one after the other, in order
let deadline = null;
let ticker = null;
let over = false;
// The game's grid and every word on it, fetched (GET, so the service worker keeps them) as
// soon as the seed is known: once the page is loaded, a game plays without the network,
// judged here when the server cannot be reached.
let loaded = null; // { key, roll, solution }
let found = []; // words accepted, in order (for the judge of last resort and the hints)

function game() {
  // The seed goes as text: seeds reach 2**64, past what a JavaScript number holds exactly.
  return { dice: $("dice").value, seed: $("seed").value, dict: $("dict").value || null, bonus: bonusValue($("bonus")) };
}

function remember() {
  const { dice, seed, dict } = game();
  if (DAILY) setQuery({ dice });
  else setQuery({ dice, seed, dict, time: $("time").value, bonus: $("bonus").value === "auto" ? null : $("bonus").value || "none" });
}

/** A random id kept by this browser: the server keeps one daily result per player and day. */
function playerId() {
  const key = "boggle-dafsa-player";
  let id = localStorage.getItem(key);
  if (!id || !/^[A-Za-z0-9_-]{8,64}$/.test(id)) {
    const bytes = crypto.getRandomValues(new Uint8Array(12));
    id = Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
    localStorage.setItem(key, id);
  }
  return id;
}

/** The player's token, when they took a name in the arena (kept by arena.js): their daily
 * streak is then kept on the server too, and follows them to any browser. */
function member() {
  try {
    const kept = JSON.parse(localStorage.getItem("boggle-dafsa-arena") || "null");
    return kept && typeof kept.token === "string" ? kept : null;
  } catch (error) {
    return null;
  }
}

/** The streak the server keeps for a player with a token (any browser), under the local one. */
async function showServerStreak() {
  const player = member();
  $("server-streak").hidden = true;
  if (!player) return;
  try {
    const streak = await api("/api/daily/streak", { member: player.token, dice: daily.dice });
    const plural = (count) => `${count} day${count === 1 ? "" : "s"}`;
    $("server-streak").textContent =
      `On this server, as ${streak.name}: ${plural(streak.current)} in a row; best ${plural(streak.best)}; ${plural(streak.played)} played (in any browser).`;
    $("server-streak").hidden = false;
  } catch (error) {
    // no streak to show (a token of another server): the local one stands
  }
}

function describeResults(results) {
  if (!results.players) return "Nobody has sent a result today yet.";
  const players = results.players === 1 ? "1 player" : `${results.players} players`;
  return `${players} today: average ${results.average} points, best ${results.best}.`;
}

/** Where this browser keeps the day played with a dice set (its result, report and solution). */
function dailyKey() {
  return `boggle-dafsa-daily ${daily.date} ${daily.dice}`;
}

function playedToday() {
  try {
    return JSON.parse(localStorage.getItem(dailyKey()) || "null");
  } catch (error) {
    return null;
  }
}

/** Every daily puzzle this browser played with ``dice`` (its localStorage keys), newest first. */
function dailyHistory(dice) {
  const days = [];
  for (let index = 0; index < localStorage.length; index += 1) {
    const key = localStorage.key(index) || "";
    const match = /^boggle-dafsa-daily (\d{4}-\d{2}-\d{2}) (\S+)$/.exec(key);
    if (!match || match[2] !== dice) continue;
    try {
      days.push({ key, date: match[1], kept: JSON.parse(localStorage.getItem(key)) || {} });
    } catch (error) {
      // a damaged entry is no day played
    }
  }
  return days.sort((a, b) => (a.date < b.date ? 1 : -1));
}

/** The UTC day before ``date`` (YYYY-MM-DD). */
function dayBefore(date) {
  const day = new Date(`${date}T00:00:00Z`);
  day.setUTCDate(day.getUTCDate() - 1);
  return day.toISOString().slice(0, 10);
}

/** The streak (days in a row played up to today, or up to yesterday while today is still to
 * play) and the best run, from the days played. */
export function streaks(dates, today) {
  const played = new Set(dates);
  let current = 0;
  for (let day = played.has(today) ? today : dayBefore(today); played.has(day); day = dayBefore(day)) current += 1;
  let best = 0;
  let run = 0;
  let previous = null;
  for (const date of [...played].sort()) {
    run = previous !== null && dayBefore(date) === previous ? run + 1 : 1;
    best = Math.max(best, run);
    previous = date;
  }
  return { current, best };
}

/** The streak and the days played, under the day's result. Days older than a week keep
 * their score and words only (their solution goes: localStorage holds about 5 MB). */
function showHistory() {
  const days = dailyHistory(daily.dice);
  let weekAgo = daily.date;
  for (let step = 0; step < 7; step += 1) weekAgo = dayBefore(weekAgo);
  for (const day of days) {
    if (day.date < weekAgo && day.kept.report) {
      delete day.kept.report;
      localStorage.setItem(day.key, JSON.stringify(day.kept));
    }
  }
  const { current, best } = streaks(days.map((day) => day.date), daily.date);
  const plural = (count) => `${count} day${count === 1 ? "" : "s"}`;
  const today = days.length && days[0].date === daily.date;
  $("streak").textContent = days.length
    ? `Streak: ${plural(current)} in a row${today || !current ? "" : " (play today to keep it)"}; best ${plural(best)}; ${plural(days.length)} played.`
    : "";
  $("history").replaceChildren(...days.slice(0, 30).map((day) => {
    const item = document.createElement("li");
    const words = day.kept.words === undefined ? "" : `, ${day.kept.words} words`;
    const counted = day.kept.error ? " (not counted)" : "";
    item.textContent = `${day.date}: ${day.kept.score ?? 0} points${words}${counted}`;
    return item;
  }));
  $("history").hidden = days.length === 0;
  showServerStreak();
}

async function loadDaily() {
  daily = await api(`/api/daily?dice=${encodeURIComponent($("dice").value)}`);
  started = null;
  $("seed").value = String(daily.seed);
  $("time").value = String(daily.seconds);
  $("dict").value = daily.dictionary;
  $("title").textContent = `Today's puzzle, ${daily.date} (UTC)`;
  $("game").hidden = false; // the day's numbers, or the day played, are there before Start
  $("daily").hidden = false;
  $("daily-stats").textContent = describeResults(daily.results);
  $("share").hidden = true;
  $("copy-share").hidden = true;
  $("report").hidden = true;
  $("verdicts").replaceChildren();
  $("score").textContent = "0";
  $("clock").textContent = "–:––";
  $("board").replaceChildren();
  board = null;
  remember();
  const kept = playedToday();
  $("start").hidden = kept !== null;
  if (kept) showPlayed(kept, daily.results);
  showHistory();
}

/** The day played, as it ended: its result (or why it did not count), the report, the text to share. */
function showPlayed(kept, results) {
  if (!board) board = new Board($("board"), daily.shape, daily.faces);
  $("clock").textContent = "0:00";
  $("start").hidden = true;
  document.body.dataset.state = "over"; // the day played: its result first (on a phone, above the board)
  $("score").textContent = String(kept.score ?? 0);
  $("daily-stats").textContent = kept.error
    ? `Your result did not count: ${kept.error}. ${describeResults(results)}`
    : `You played today's puzzle: ${kept.score} points. ${describeResults(results)}`;
  if (kept.share) {
    $("share").textContent = `${kept.share}\n${location.origin}/daily?dice=${encodeURIComponent(kept.dice)}`;
    $("share").hidden = false;
    $("copy-share").hidden = false;
  }
  if (kept.report) showReport(kept.report);
}

/** The end of a daily game: the result first (it counts), then the solution (once shown, a result no longer counts). */
async function sendDaily() {
  const kept = { date: daily.date, dice: daily.dice };
  let results = daily.results;
  try {
    const player = member();
    const answer = await api("/api/daily", { token: started.token, words, member: player ? player.token : null });
    Object.assign(kept, { score: answer.score, share: answer.share, words: answer.words, total: answer.total });
    if (!answer.counted) kept.error = answer.why || "not counted";
    results = answer.results;
  } catch (error) {
    kept.error = String(error.message || error);
  }
  try {
    kept.report = await api("/api/daily/solution", { token: started.token, words });
    if (kept.score === undefined) kept.score = kept.report.report.score;
  } catch (error) {
    showError($("error"), error);
  }
  if (kept.share || kept.report) localStorage.setItem(dailyKey(), JSON.stringify(kept));
  showPlayed(kept, results);
  showHistory();
}

async function newSeed() {
  const rolled = await api(`/api/roll?dice=${encodeURIComponent($("dice").value)}`);
  $("seed").value = String(rolled.seed);
  remember();
  await load();
}

async function start() {
  showError($("error"), null);
  const seconds = Number($("time").value);
  if (!(seconds >= 1 && seconds <= 3600)) return showError($("error"), "a game lasts 1 to 3600 seconds");
  if ($("seed").value === "") await newSeed();
  remember();
  let left = seconds;
  if (DAILY) {
    started = await api("/api/daily/start", { dice: daily.dice, date: daily.date, player: playerId() });
    if (started.counted || started.revealed) return showError($("error"), "you have played today's puzzle already");
    if (started.left <= 0) return showError($("error"), "your game of today's puzzle is over: come back tomorrow");
    left = started.left; // the server's clock: a reload does not give the time back
  }
  const answer = (await load()).roll;
  board = new Board($("board"), answer.shape, answer.faces);
  board.onTrace = (traced) => { $("word").value = traced; };
  board.onSubmit = (word) => submit(word);
  board.onType = (letter) => { $("word").value += letter; $("word").focus(); };
  words = [];
  found = [];
  over = false;
  $("verdicts").replaceChildren();
  $("report").hidden = true;
  $("score").textContent = "0";
  $("setup").querySelectorAll("input, select, button").forEach((element) => { element.disabled = true; });
  $("game").hidden = false; // hidden until now on Play: its panels hold nothing before the game
  $("entry").hidden = false;
  $("stop").hidden = false;
  $("ask-hint").hidden = DAILY; // no hints in the daily contest
  $("hint-text").hidden = true;
  // The playing layout first (on a phone: the clock, score and board at the top), then the
  // focus: given to a field below the fold, it would scroll the page.
  document.body.dataset.state = "playing";
  $("word").focus();
  deadline = Date.now() + left * 1000;
  tick();
  ticker = setInterval(tick, 250);
}

function tick() {
  const left = (deadline - Date.now()) / 1000;
  $("clock").textContent = formatClock(left);
  $("clock").classList.toggle("low", left <= 10);
  if (left <= 0) finish();
}

function submit(raw) {
  raw = raw.trim();
  if (board && board.trail.length) board.resetTrail(); // a traced word sent with Enter or OK: its trail goes
  $("word").value = "";
  if (!raw || over) return;
  words.push(raw);
  const sent = [...words];
  queue = queue.then(async () => {
    let verdict;
    let points = null;
    try {
      const answer = await api("/api/play", { ...game(), words: sent });
      verdict = answer.verdicts[answer.verdicts.length - 1];
      points = answer.score;
    } catch (error) {
      verdict = judgeHere(raw); // offline: the grid's own words decide
    }
    if (verdict.accepted) found.push(verdict.word);
    showVerdict(verdict);
    if (points !== null || loaded.solution) $("score").textContent = String(points ?? score());
  });
}

/** The roll and the solution of the game chosen in the form (fetched once per game). */
async function load(again = false) {
  const { dice, seed, dict } = game();
  const key = `${dice} ${seed} ${dict}`;
  if (!again && loaded && loaded.key === key) return loaded;
  if (DAILY) {
    // Not the grid's words: the page does not hold the solution before the game is over.
    loaded = { key, roll: daily, solution: null };
    return loaded;
  }
  const roll = await api(`/api/roll?dice=${encodeURIComponent(dice)}&seed=${encodeURIComponent(seed)}`);
  const words = dict || roll.dictionary;
  // clean=true: the grid's words as a clean game counts them (POST /api/play is clean too).
  const solution = await api(`/api/solve?grid=${encodeURIComponent(roll.grid)}&dict=${encodeURIComponent(words)}&dice=${encodeURIComponent(dice)}&clean=true`);
  loaded = { key, roll, solution };
  return loaded;
}

/** A word as the dictionaries store it: upper case, no accent, Œ as OE; null if not letters. */
export function normalizeWord(raw) {
  let text = raw.trim().normalize("NFD").replace(/\p{M}+/gu, "");
  for (const [ligature, letters] of [["Œ", "OE"], ["œ", "oe"], ["Æ", "AE"], ["æ", "ae"], ["ß", "ss"], ["ẞ", "SS"]]) {
    text = text.split(ligature).join(letters);
  }
  text = text.normalize("NFC").toUpperCase();
  return /^\p{L}+$/u.test(text) ? text : null;
}

/** The verdict the server would give, from the grid's words (offline). */
function judgeHere(raw) {
  const word = normalizeWord(raw);
  const base = { input: raw, word, accepted: false, points: 0, path: null };
  if (!loaded.solution) return { ...base, reason: "offline: judged when the game ends" };
  if (word === null) return { ...base, reason: "not a word" };
  if (word.length < loaded.roll.min_length) return { ...base, reason: "too short" };
  const hit = loaded.solution.words.find((entry) => entry.word === word);
  if (!hit) return { ...base, reason: "not a word of this grid (offline: no dictionary to say which)" };
  if (found.includes(word)) return { ...base, reason: "already found" };
  return { ...base, accepted: true, points: hit.points, path: hit.path, reason: null };
}

/** The hints of a solo game, as the server gives them in rooms (web/hints.py): the first
 * letter and length of the best word not found yet; once 40 % of the words are found,
 * how many words still to find start on each cell. */
function showHint() {
  const mine = new Set(found);
  const left = loaded.solution.words.filter((hit) => !mine.has(hit.word));
  const total = loaded.solution.words.length;
  const parts = [];
  if (left.length) {
    const best = [...left].sort((a, b) => b.points - a.points || b.word.length - a.word.length || (a.word < b.word ? -1 : 1))[0];
    const [row, col] = best.path[0];
    const first = loaded.roll.faces[row * loaded.roll.shape[1] + col];
    parts.push(`A word of ${best.word.length} letters starts with ${first} (${best.points} points).`);
  } else {
    parts.push("You found every word!");
  }
  if (total && mine.size >= 0.4 * total) {
    const counts = new Array(loaded.roll.faces.length).fill(0);
    for (const hit of left) counts[hit.path[0][0] * loaded.roll.shape[1] + hit.path[0][1]] += 1;
    board.cells.forEach((cell, index) => { cell.dataset.hint = String(counts[index]); });
    parts.push("The numbers on the cells: words still to find that start there.");
  } else {
    parts.push(`Find ${Math.ceil(0.4 * total) - mine.size} more words for the cell counts.`);
  }
  $("hint-text").textContent = parts.join(" ");
  $("hint-text").hidden = false;
}

function score() {
  const points = new Map(loaded.solution.words.map((hit) => [hit.word, hit.points]));
  return found.reduce((total, word) => total + (points.get(word) || 0), 0);
}

/** The end-of-game report from the grid's words (offline). */
function reportHere() {
  const mine = new Set(found);
  const all = loaded.solution.words;
  return {
    report: {
      score: score(),
      found: all.filter((hit) => mine.has(hit.word)),
      missed: all.filter((hit) => !mine.has(hit.word)),
      total: loaded.solution.totals,
    },
    solution: loaded.solution,
  };
}

function showVerdict(verdict) {
  const item = document.createElement("li");
  const shown = verdict.word || verdict.input;
  if (verdict.accepted) {
    item.className = "accepted";
    item.textContent = verdict.bonus ? `${shown}: bonus word (not scored)` : `${shown}: +${verdict.points}`;
    if (verdict.path) board.highlight(verdict.path);
  } else {
    item.className = "refused";
    item.textContent = `${shown}: ${verdict.reason}`;
  }
  $("verdicts").prepend(item);
}

async function finish() {
  if (over) return;
  over = true;
  clearInterval(ticker);
  $("clock").textContent = "0:00";
  $("entry").hidden = true;
  $("stop").hidden = true;
  $("ask-hint").hidden = true;
  $("hint-text").hidden = true;
  board.onTrace = null;
  board.resetTrail();
  await queue; // the words already sent are judged first
  if (DAILY) {
    await sendDaily().catch((error) => showError($("error"), error));
  } else {
    const seconds = Number($("time").value);
    let answer;
    try {
      answer = await api("/api/play", { ...game(), words, end: true, time: seconds });
    } catch (error) {
      answer = reportHere(); // offline
    }
    showReport(answer);
  }
  $("setup").querySelectorAll("input, select, button").forEach((element) => { element.disabled = false; });
  document.body.dataset.state = "over";
}

function showReport(answer) {
  const report = answer.report;
  const paths = new Map(answer.solution.words.map((hit) => [hit.word, hit.path]));
  const entry = (hit) => ({ word: hit.word, points: hit.points, path: paths.get(hit.word) });
  const percent = (part, whole) => (whole ? ` (${Math.round((100 * part) / whole)}%)` : "");
  $("summary").textContent =
    `You found ${report.found.length} of ${report.total.words} words${percent(report.found.length, report.total.words)} ` +
    `and ${report.score} of ${report.total.points} points${percent(report.score, report.total.points)}.`;
  if (report.bonus) {
    $("summary").textContent += ` Bonus words (of ${report.bonus.list}, not scored): ${report.bonus.found.length} of ${report.bonus.total}.`;
  }
  const point = (item) => board.highlight(item.path);
  new WordTable($("missed"), { onPoint: point }).show(report.missed.map(entry));
  new WordTable($("found"), { onPoint: point }).show(report.found.map(entry));
  // The review (the server's; an offline report has none): the missed words arranged for study.
  if (report.review) showReview($("review"), report.review, { paths, board, dictionary: $("dict").value || (loaded && loaded.roll.dictionary) });
  else $("review").hidden = true;
  $("report").hidden = false;
}

async function main() {
  if ("serviceWorker" in navigator) {
    // The first visit's data may come before the worker: fetch it again through it, to keep it.
    // The data in hand stays until the new copy is in: a game under way reads it (a Hint
    // pressed while it was dropped showed nothing).
    navigator.serviceWorker.addEventListener("controllerchange", () => {
      load(true).catch(() => null);
    });
  }
  $("setup").addEventListener("submit", (event) => {
    event.preventDefault();
    start().catch((error) => showError($("error"), error));
  });
  $("entry").addEventListener("submit", (event) => {
    event.preventDefault();
    submit($("word").value);
  });
  $("stop").addEventListener("click", finish);
  $("ask-hint").addEventListener("click", showHint);
  $("new").addEventListener("click", () => newSeed().catch((error) => showError($("error"), error)));
  $("copy-share").addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText($("share").textContent);
      $("copy-share").textContent = "Copied";
    } catch (error) {
      showError($("error"), "the browser refused to copy: select the text instead");
    }
  });
  if (DAILY) {
    // Everybody plays the same grid for the same time: nothing to choose but the dice.
    for (const id of ["seed-label", "time-label", "new", "bonus-label"]) $(id).hidden = true;
    $("dict").closest("label").hidden = true;
    document.querySelectorAll("nav a").forEach((link) => {
      if (link.getAttribute("href") === "/daily") link.setAttribute("aria-current", "page");
      else link.removeAttribute("aria-current");
    });
    document.title = "Daily puzzle — boggle-dafsa";
  }
  try {
    await Promise.all([
      fillDice($("dice"), params.get("dice")),
      fillDictionaries($("dict"), params.get("dict"), "the dice set's own"),
      fillBonus($("bonus"), params.get("bonus") === "none" ? "" : params.get("bonus")),
    ]);
    if (DAILY) {
      await loadDaily();
      $("dice").addEventListener("change", () => loadDaily().catch((error) => showError($("error"), error)));
    } else {
      if (params.get("time")) $("time").value = params.get("time");
      if (params.get("seed")) $("seed").value = params.get("seed");
      else await newSeed();
    }
    remember();
    await load(); // the game is ready to play, with or without the network
  } catch (error) {
    showError($("error"), error);
  }
  document.body.dataset.ready = "true";
}

main();
