// What the three pages share: calling the API, filling the choice lists, sortable word tables.

/** GET (or POST a JSON body to) an API path; resolves to the JSON answer, rejects with its error line. */
export async function api(path, body) {
  const options = body === undefined ? {} : {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  };
  let response;
  try {
    response = await fetch(path, options);
  } catch (error) {
    throw new Error("the server cannot be reached");
  }
  let data = null;
  try {
    data = await response.json();
  } catch (error) {
    data = null;
  }
  if (!response.ok) throw new Error((data && data.error) || `error ${response.status}`);
  return data;
}

/** Fill a <select> with the server's dictionaries; an empty first option when `automatic` names it. */
export async function fillDictionaries(select, chosen, automatic) {
  const list = await api("/api/dictionaries");
  select.replaceChildren();
  if (automatic) select.append(new Option(automatic, ""));
  for (const entry of list) {
    const option = new Option(`${entry.name} — ${entry.description}`, entry.name);
    select.append(option);
  }
  if (chosen && list.some((entry) => entry.name === chosen)) select.value = chosen;
  else if (!automatic) select.value = (list.find((entry) => entry.default) || list[0]).name;
  return list;
}

/** Fill a <select> with the choices of a game's bonus list (game/bonus.py): the server's
 * pick ("auto": enable2k for en), none, or one of the server's dictionaries. */
export async function fillBonus(select, chosen) {
  const list = await api("/api/dictionaries");
  select.replaceChildren(new Option("the usual (enable2k for en)", "auto"), new Option("none", ""));
  for (const entry of list) select.append(new Option(entry.name, entry.name));
  select.value = chosen !== null && [...select.options].some((option) => option.value === chosen) ? chosen : "auto";
}

/** A bonus <select>'s value as the API takes it: "auto", null (none) or a dictionary's name. */
export function bonusValue(select) {
  return select.value === "" ? null : select.value;
}

/** Fill a <select> with the dice sets. */
export async function fillDice(select, chosen) {
  const sets = await api("/api/dice");
  select.replaceChildren(...sets.map((set) => new Option(`${set.name} — ${set.title}`, set.name)));
  if (chosen && sets.some((set) => set.name === chosen)) select.value = chosen;
  return sets;
}

export function showError(element, error) {
  element.textContent = error ? String(error.message || error) : "";
}

/** Set the page's query string to `params` (empty values left out) without reloading. */
export function setQuery(params) {
  const query = new URLSearchParams();
  for (const [key, value] of Object.entries(params)) {
    if (value !== undefined && value !== null && value !== "") query.set(key, String(value));
  }
  history.replaceState(null, "", `${location.pathname}?${query}`);
}

const SORTS = {
  points: (a, b) => b.points - a.points || b.word.length - a.word.length || (a.word < b.word ? -1 : 1),
  length: (a, b) => b.word.length - a.word.length || b.points - a.points || (a.word < b.word ? -1 : 1),
  word: (a, b) => (a.word < b.word ? -1 : a.word > b.word ? 1 : 0),
};

/**
 * A table of words, sortable by points, length or alphabet; pointing at (or tapping,
 * or focusing) a row calls onPoint(entry). Entries: {word, points, path, extra?: [cells]}.
 */
export class WordTable {
  constructor(element, { onPoint, extraColumns = [], sort = "points" } = {}) {
    this.element = element;
    this.onPoint = onPoint;
    this.extraColumns = extraColumns;
    this.sort = sort;
    this.entries = [];
  }

  show(entries) {
    this.entries = entries;
    this.render();
  }

  render() {
    const table = document.createElement("table");
    table.className = "words";
    const head = table.createTHead().insertRow();
    const columns = [["word", "word", ""], ["points", "pts", "num"], ["length", "len", "num"]];
    for (const [key, label, kind] of columns) {
      const th = document.createElement("th");
      th.className = kind;
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = label;
      button.dataset.sort = key;
      // aria-sort belongs to the column header, not to the button in it.
      if (key === this.sort) th.setAttribute("aria-sort", key === "word" ? "ascending" : "descending");
      button.addEventListener("click", () => {
        this.sort = key;
        this.render();
      });
      th.append(button);
      head.append(th);
    }
    for (const label of this.extraColumns) {
      const th = document.createElement("th");
      th.className = "num";
      th.textContent = label;
      head.append(th);
    }
    const body = table.createTBody();
    const sorted = [...this.entries].sort(SORTS[this.sort]);
    for (const entry of sorted) {
      const row = body.insertRow();
      row.tabIndex = 0;
      row.dataset.word = entry.word;
      const cells = [[entry.word, ""], [entry.points, "num"], [entry.word.length, "num"], ...(entry.extra || []).map((text) => [text, "num"])];
      for (const [text, kind] of cells) {
        const td = row.insertCell();
        td.textContent = String(text);
        if (kind) td.className = kind;
      }
      const point = () => {
        for (const other of body.querySelectorAll("tr.active")) other.classList.remove("active");
        row.classList.add("active");
        if (this.onPoint) this.onPoint(entry);
      };
      row.addEventListener("mouseenter", point);
      row.addEventListener("focus", point);
      row.addEventListener("click", point);
    }
    this.element.replaceChildren(table);
  }
}
