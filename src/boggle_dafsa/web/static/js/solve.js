// The Solve page: a grid typed or rolled, its words in a sortable table, each word's path
// on the board. The grid, dictionary and rules live in the URL.
import { Board } from "./board.js";
import { api, fillDice, fillDictionaries, setQuery, showError, WordTable } from "./common.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

/** The faces of a 2-D grid as `solve --json` writes it: rows split by "/", faces by spaces if any has several letters. */
export function facesOf(text) {
  const rows = text.replace(/\/+$/, "").split("/");
  return rows.flatMap((row) => (row.includes(" ") ? row.split(" ") : [...row]));
}

let board = null;
const table = new WordTable($("words"), { onPoint: (entry) => board && board.highlight(entry.path) });

async function solve() {
  showError($("error"), null);
  const grid = $("grid").value.trim();
  if (!grid) return;
  const query = { grid, dict: $("dict").value, scoring: $("scoring").value, min_length: $("min").value };
  setQuery({ grid, dict: query.dict, scoring: query.scoring, min: query.min_length });
  const search = new URLSearchParams(Object.entries(query).filter(([, value]) => value !== ""));
  $("solve").disabled = true;
  try {
    const result = await api(`/api/solve?${search}`);
    if (result.shape.length !== 2) throw new Error(`this page shows 2-D grids; this one is ${result.shape.join("x")} (the API solves it)`);
    board = new Board($("board"), result.shape, facesOf(result.grid));
    const { words, points } = result.totals;
    $("totals").textContent = `${words.toLocaleString()} word${words === 1 ? "" : "s"}, ${points.toLocaleString()} point${points === 1 ? "" : "s"}`;
    table.show(result.words.map((hit) => ({ word: hit.word, points: hit.points, path: hit.path })));
  } catch (error) {
    showError($("error"), error);
  } finally {
    $("solve").disabled = false;
  }
}

async function roll() {
  showError($("error"), null);
  try {
    const rolled = await api(`/api/roll?dice=${encodeURIComponent($("dice").value)}`);
    $("grid").value = rolled.grid;
    $("dict").value = rolled.dictionary;
    $("scoring").value = rolled.scoring;
    $("min").value = String(rolled.min_length);
    await solve();
  } catch (error) {
    showError($("error"), error);
  }
}

async function start() {
  $("form").addEventListener("submit", (event) => {
    event.preventDefault();
    solve();
  });
  $("roll").addEventListener("click", roll);
  try {
    await Promise.all([fillDictionaries($("dict"), params.get("dict")), fillDice($("dice"), params.get("dice"))]);
  } catch (error) {
    showError($("error"), error);
  }
  $("grid").value = params.get("grid") || "";
  $("scoring").value = params.get("scoring") || "";
  $("min").value = params.get("min") || "";
  document.body.dataset.ready = "true";
  // The page opens on a board: the grid of the link, else one rolled from the dice set.
  if ($("grid").value) await solve();
  else await roll();
  document.body.dataset.solved = "true";
}

start();
