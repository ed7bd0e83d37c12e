// The Study page: a search with Zyzzyva's conditions (/api/search, what `search --json`
// prints), its words in a table with their columns, and a cardbox quiz over their anagram
// groups. The schedule is the server's (/api/quiz/answer moves each card, Zyzzyva's boxes);
// the cards are kept in this browser (localStorage: the page sends the card with each
// answer) or on the server under a token (POST /api/quiz/token, then Authorization: Bearer).
import { fillDictionaries, setQuery, showError } from "./common.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

/** The conditions' fields: the API's names, each the id of its element. */
const CONDITIONS = [
  "pattern", "length", "anagram", "regex", "subanagram", "includes", "excludes", "vowels", "distinct", "points",
  "takes_prefix", "takes_suffix", "not_takes_prefix", "not_takes_suffix", "hooks", "anagrams", "probability", "in", "not_in",
];
/** The columns each word is listed with, and their headers. */
const COLUMNS = [
  ["front_hooks", "front"], ["back_hooks", "back"], ["probability", "rank"],
  ["anagrams", "anagrams"], ["points", "points"], ["expected", "expected"],
];
const TOKEN_KEY = "boggle-dafsa-quiz-token";
const cardsKey = (dictionary) => `boggle-dafsa-quiz-cards:${dictionary}`;

let found = []; // the words of the last search
let session = null; // {cards, at, asked, right}

function plural(count, word) {
  return `${count.toLocaleString()} ${word}${count === 1 ? "" : "s"}`;
}

/** Today as the quiz takes it: ?today=YYYY-MM-DD (tests), else this device's local date. */
function today() {
  const given = params.get("today");
  if (given && /^\d{4}-\d{2}-\d{2}$/.test(given)) return given;
  const now = new Date();
  const pad = (n) => String(n).padStart(2, "0");
  return `${now.getFullYear()}-${pad(now.getMonth() + 1)}-${pad(now.getDate())}`;
}

function token() {
  return localStorage.getItem(TOKEN_KEY);
}

/** GET or POST (a JSON body) an API path, with the token when there is one. */
async function call(path, body) {
  const headers = {};
  const kept = token();
  if (kept) headers.authorization = `Bearer ${kept}`;
  const options = { headers };
  if (body !== undefined) {
    options.method = "POST";
    headers["content-type"] = "application/json";
    options.body = JSON.stringify(body);
  }
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error("the server cannot be reached");
  }
  const data = await response.json().catch(() => null);
  if (!response.ok) throw new Error((data && data.error) || `error ${response.status}`);
  return { data, response };
}

// -- the cards kept in this browser -----------------------------------------------------

function localCards() {
  try {
    return JSON.parse(localStorage.getItem(cardsKey($("dict").value)) || "{}");
  } catch (error) {
    return {};
  }
}

function saveLocal(cards) {
  localStorage.setItem(cardsKey($("dict").value), JSON.stringify(cards));
}

/** The local cards due today: the longest overdue first, then by box, then by question (the server's order). */
function localDue() {
  const day = today();
  const due = Object.values(localCards()).filter((card) => card.due <= day);
  if ($("order").value === "expected") {
    due.sort((a, b) => (b.expected || 0) - (a.expected || 0) || (a.due < b.due ? -1 : a.due > b.due ? 1 : 0));
  } else {
    due.sort((a, b) => (a.due < b.due ? -1 : a.due > b.due ? 1 : a.box - b.box || (a.question < b.question ? -1 : 1)));
  }
  return due;
}

async function showFigures() {
  try {
    let cards, boxes, due, next;
    if (token()) {
      const { data } = await call(`/api/quiz/stats?${new URLSearchParams({ d: $("dict").value, today: today() })}`);
      cards = data.cards;
      boxes = data.boxes;
      due = data.due;
      next = data.next_due;
    } else {
      const all = Object.values(localCards());
      cards = all.length;
      boxes = {};
      for (const card of all) boxes[card.box] = (boxes[card.box] || 0) + 1;
      due = all.filter((card) => card.due <= today()).length;
      next = all.map((card) => card.due).filter((day) => day > today()).sort()[0] || null;
    }
    const parts = Object.entries(boxes).map(([box, count]) => `box ${box}: ${count}`);
    $("box-figures").textContent = cards === 0
      ? "No card yet: search, then study the groups found."
      : `${plural(cards, "card")} (${parts.join(", ")}); ${due} due on ${today()}${next ? `, next on ${next}` : ""}.`;
  } catch (error) {
    showError($("error"), error);
  }
  $("kept-where").textContent = token()
    ? `On this server, under the token ${token()} (keep it to study from another device).`
    : "In this browser (its local storage).";
  $("token").value = token() || "";
}

// -- the search ---------------------------------------------------------------------------

function table(words, columns) {
  const element = document.createElement("table");
  element.className = "words";
  const caption = element.createCaption();
  caption.className = "muted";
  caption.textContent = "The words found, with Zyzzyva's columns";
  const head = element.createTHead().insertRow();
  for (const [, label] of [["word", "word"], ...columns]) {
    const th = document.createElement("th");
    th.scope = "col";
    th.textContent = label;
    head.append(th);
  }
  const body = element.createTBody();
  for (const entry of words) {
    const row = body.insertRow();
    row.dataset.word = entry.word;
    row.insertCell().textContent = entry.word;
    for (const [key] of columns) {
      const cell = row.insertCell();
      const value = entry[key];
      cell.textContent = value === "" ? "-" : key === "expected" ? Number(value).toFixed(4) : String(value);
      if (typeof value === "number") cell.className = "num";
    }
  }
  return element;
}

async function search() {
  showError($("error"), null);
  const query = { d: $("dict").value };
  for (const name of CONDITIONS) {
    const value = $(name).value.trim();
    if (value) query[name] = value;
  }
  if ($("sort").value) query.sort = $("sort").value;
  const names = ["hooks", "probability", "anagrams", "points", ...($("sort").value === "expected" ? ["expected"] : [])];
  setQuery({ ...query, limit: $("limit").value });
  query.columns = names.join(",");
  query.limit = $("limit").value || "200";
  $("find").disabled = true;
  $("summary").textContent = "Searching…";
  try {
    const { data, response } = await call(`/api/search?${new URLSearchParams(query)}`);
    found = data.words.map((entry) => entry.word);
    const columns = COLUMNS.filter(([key]) => data.words.length && key in data.words[0]);
    $("results").replaceChildren(...(found.length ? [table(data.words, columns)] : []));
    const more = response.headers.get("x-more-results") === "true";
    const groups = new Set(found.map((word) => [...word].sort().join(""))).size;
    $("summary").textContent = found.length === 0
      ? "No word."
      : `${more ? `The first ${plural(found.length, "word")} (there are more: narrow the search)` : plural(found.length, "word")}, ${plural(groups, "anagram group")}.`;
  } catch (error) {
    found = [];
    $("results").replaceChildren();
    $("summary").textContent = "";
    showError($("error"), error);
  } finally {
    $("find").disabled = false;
    $("add").disabled = found.length === 0;
    document.body.dataset.searched = String(Number(document.body.dataset.searched || 0) + 1);
  }
}

// -- the quiz -----------------------------------------------------------------------------

/** The groups of the words found become cards (new ones in box 0, due today); then the quiz asks those due among them. */
async function addFound() {
  showError($("error"), null);
  try {
    const { data } = await call("/api/quiz/add", { d: $("dict").value, words: found, today: today() });
    const questions = new Set(data.questions.map((card) => card.question));
    if (!token()) {
      const cards = localCards();
      for (const card of data.questions) if (!(card.question in cards)) cards[card.question] = card;
      saveLocal(cards);
    }
    const added = token() ? data.added : data.questions.length;
    $("verdict").textContent = `${plural(questions.size, "anagram group")} to study.`;
    await showFigures();
    await startQuiz(questions, added);
  } catch (error) {
    showError($("error"), error);
  }
}

/** Ask the cards due (of `among` only, when given). */
async function startQuiz(among) {
  showError($("error"), null);
  let cards;
  try {
    if (token()) {
      const query = { d: $("dict").value, today: today(), order: $("order").value, limit: "500" };
      const { data } = await call(`/api/quiz/due?${new URLSearchParams(query)}`);
      cards = data.cards;
    } else {
      cards = localDue();
    }
  } catch (error) {
    showError($("error"), error);
    return;
  }
  if (among) cards = cards.filter((card) => among.has(card.question));
  if (cards.length === 0) {
    $("verdict").textContent = `Nothing due on ${today()}.`;
    return;
  }
  session = { cards, at: 0, asked: 0, right: 0 };
  $("ask").hidden = false;
  document.body.dataset.state = "quiz";
  ask();
}

function ask() {
  const card = session.cards[session.at];
  $("question").textContent = `${session.at + 1}/${session.cards.length} ${card.question}: ${plural(card.words, "word")}`;
  $("answer").value = "";
  $("answer").focus();
}

async function check() {
  if (!session) return;
  const card = session.cards[session.at];
  const words = $("answer").value.split(/[\s,]+/).filter(Boolean);
  const body = { d: $("dict").value, question: card.question, words, today: today(), schedule: $("schedule").value };
  if (!token()) {
    body.card = { box: card.box, due: card.due, right: card.right, wrong: card.wrong, streak: card.streak };
    if (card.stability !== undefined) Object.assign(body.card, { stability: card.stability, difficulty: card.difficulty, reviewed: card.reviewed });
  }
  $("check").disabled = true;
  try {
    const { data } = await call("/api/quiz/answer", body);
    if (!token()) {
      const cards = localCards();
      cards[card.question] = { ...card, ...data.card, words: card.words };
      saveLocal(cards);
    }
    session.asked += 1;
    session.right += data.right ? 1 : 0;
    $("verdict").textContent = data.line;
    document.body.dataset.answered = String(Number(document.body.dataset.answered || 0) + 1);
    session.at += 1;
    if (session.at < session.cards.length) ask();
    else finish();
  } catch (error) {
    showError($("error"), error);
  } finally {
    $("check").disabled = false;
  }
}

function finish() {
  const done = `Done: ${session.asked} answered, ${session.right} right.`;
  $("verdict").textContent = `${$("verdict").textContent} ${done}`.trim();
  session = null;
  $("ask").hidden = true;
  document.body.dataset.state = "done";
  showFigures();
  $("start").focus();
}

// -- where the cardbox is kept ----------------------------------------------------------------

async function toServer() {
  try {
    const { data } = await call("/api/quiz/token", {});
    localStorage.setItem(TOKEN_KEY, data.token);
  } catch (error) {
    showError($("error"), error);
  }
  await showFigures();
}

async function useToken() {
  const given = $("token").value.trim();
  if (!/^[A-Za-z0-9_-]{32}$/.test(given)) {
    showError($("error"), new Error("a token is 32 letters, digits, - or _ (Keep it on this server makes one)"));
    return;
  }
  localStorage.setItem(TOKEN_KEY, given);
  await showFigures();
}

async function toBrowser() {
  localStorage.removeItem(TOKEN_KEY);
  await showFigures();
}

async function start() {
  $("form").addEventListener("submit", (event) => {
    event.preventDefault();
    search();
  });
  $("ask").addEventListener("submit", (event) => {
    event.preventDefault();
    check();
  });
  $("add").addEventListener("click", addFound);
  $("start").addEventListener("click", () => startQuiz(null));
  $("stop").addEventListener("click", () => session && finish());
  $("to-server").addEventListener("click", toServer);
  $("use-token").addEventListener("click", useToken);
  $("to-browser").addEventListener("click", toBrowser);
  try {
    const list = await fillDictionaries($("dict"), params.get("d"));
    for (const id of ["in", "not_in"]) {
      $(id).replaceChildren(new Option("—", ""), ...list.map((entry) => new Option(entry.name, entry.name)));
    }
  } catch (error) {
    showError($("error"), error);
  }
  $("dict").addEventListener("change", showFigures);
  for (const name of CONDITIONS) {
    const value = params.get(name);
    if (value !== null) $(name).value = value;
  }
  if (params.get("sort")) $("sort").value = params.get("sort");
  const kept = localStorage.getItem("boggle-dafsa-quiz-schedule");
  if (kept) $("schedule").value = kept;
  $("schedule").addEventListener("change", () => localStorage.setItem("boggle-dafsa-quiz-schedule", $("schedule").value));
  if (params.get("limit")) $("limit").value = params.get("limit");
  if (CONDITIONS.slice(3).some((name) => params.get(name))) $("more").open = true;
  await showFigures();
  $("pattern").focus();
  document.body.dataset.ready = "true";
  if (params.get("words")) showGiven(params.get("words"));
  else if (CONDITIONS.some((name) => params.get(name))) await search();
}

/** Words given in the URL (?words=A,B,C: the missed words of a game, from its review) to study. */
function showGiven(text) {
  found = [...new Set(text.split(",").map((word) => word.trim().toUpperCase()).filter(Boolean))].slice(0, 1000);
  $("results").replaceChildren(table(found.map((word) => ({ word })), []));
  const groups = new Set(found.map((word) => [...word].sort().join(""))).size;
  $("summary").textContent = `${plural(found.length, "word")} to study, ${plural(groups, "anagram group")}.`;
  $("add").disabled = found.length === 0;
}

start();
