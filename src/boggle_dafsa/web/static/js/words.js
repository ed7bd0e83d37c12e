// The Words page: the word queries of the command line (match, anagram, grep, fuzzy, hooks,
// complete) asked of /api/VERB, their answers listed. The query lives in the URL.
import { fillDictionaries, setQuery, showError } from "./common.js";

const $ = (id) => document.getElementById(id);
const params = new URLSearchParams(location.search);

/** Each verb: the API's name for its text, the field's label, a hint, and its options (element ids). */
const VERBS = {
  match: {
    argument: "pattern", label: "Pattern", placeholder: "C?A*S",
    help: "? a letter, * any run, [ABC] one of, [^ABC] none of, @ a vowel, # a consonant.",
    options: { min_length: "min-length", max_length: "max-length" },
  },
  anagram: {
    argument: "letters", label: "Letters", placeholder: "RETAINS",
    help: "The words made of exactly these letters; ? is a blank (its letter shown in lower case).",
    options: { sub: "sub" },
  },
  grep: {
    argument: "regex", label: "Regular expression", placeholder: "(RE|UN)+DO",
    help: "Letters, ., [classes], ?, *, +, {m,n}, | and (groups), matched against whole words.",
    options: {},
  },
  fuzzy: {
    argument: "word", label: "Word", placeholder: "bogle",
    help: "The words within a few edits (a letter inserted, deleted or changed), nearest first.",
    options: { distance: "distance", transpositions: "transpositions", prefix: "prefix" },
  },
  hooks: {
    argument: "word", label: "Word", placeholder: "are",
    help: "The letters that make a word in front of the word, or after it.",
    options: {},
  },
  complete: {
    argument: "prefix", label: "Prefix", placeholder: "arbr",
    help: "The words that start with these letters, in order.",
    options: {},
  },
};

function plural(count, word) {
  return `${count.toLocaleString()} ${word}${count === 1 ? "" : "s"}`;
}

/** The value of an option's element: a checkbox's "true" (or nothing), else its text. */
function valueOf(element) {
  if (element.type === "checkbox") return element.checked ? "true" : "";
  return element.value.trim();
}

function showVerb() {
  const verb = VERBS[$("verb").value];
  $("text-label").textContent = verb.label;
  $("text").placeholder = verb.placeholder;
  $("help").textContent = verb.help;
  for (const label of document.querySelectorAll("label[data-verb]")) label.hidden = label.dataset.verb !== $("verb").value;
}

function item(text, note, word = text) {
  const li = document.createElement("li");
  li.textContent = text;
  li.dataset.word = word;
  if (note) {
    const span = document.createElement("span");
    span.className = "muted";
    span.textContent = ` ${note}`;
    li.append(span);
  }
  return li;
}

/** The list items of an answer, and how many words they are. */
function itemsOf(name, answer) {
  if (name === "hooks") {
    const front = [...answer.front].map((c) => item(`${c}${answer.word}`, `(${c} in front)`));
    const back = [...answer.back].map((c) => item(`${answer.word}${c}`, `(${c} after)`));
    return [...front, ...back];
  }
  return answer.map((entry) => {
    if (typeof entry === "string") return item(entry);
    if ("distance" in entry) return item(entry.word, `(${plural(entry.distance, "edit")})`);
    return item(entry.shown, "", entry.word); // an anagram: its blanks' letters in lower case
  });
}

async function find() {
  showError($("error"), null);
  const name = $("verb").value;
  const verb = VERBS[name];
  const text = $("text").value.trim();
  if (!text && name !== "complete") {
    $("text").focus();
    return;
  }
  const query = { [verb.argument]: text, d: $("dict").value };
  for (const [option, id] of Object.entries(verb.options)) {
    const value = valueOf($(id));
    if (value !== "") query[option] = value;
  }
  setQuery({ verb: name, q: text, ...Object.fromEntries(Object.entries(query).filter(([key]) => key !== verb.argument)) });
  $("find").disabled = true;
  $("summary").textContent = "Searching…";
  try {
    let response;
    try {
      response = await fetch(`/api/${name}?${new URLSearchParams(query)}`);
    } catch (error) {
      throw new Error("the server cannot be reached");
    }
    const answer = await response.json().catch(() => null);
    if (!response.ok) throw new Error((answer && answer.error) || `error ${response.status}`);
    const items = itemsOf(name, answer);
    $("results").replaceChildren(...items);
    const more = response.headers.get("x-more-results") === "true";
    $("summary").textContent = items.length === 0
      ? "No word."
      : more ? `The first ${plural(items.length, "word")}; there are more (narrow the query).` : `${plural(items.length, "word")}.`;
  } catch (error) {
    $("results").replaceChildren();
    $("summary").textContent = "";
    showError($("error"), error);
  } finally {
    $("find").disabled = false;
    document.body.dataset.searched = String(Number(document.body.dataset.searched || 0) + 1);
  }
}

async function start() {
  $("form").addEventListener("submit", (event) => {
    event.preventDefault();
    find();
  });
  $("verb").addEventListener("change", showVerb);
  if (params.get("verb") in VERBS) $("verb").value = params.get("verb");
  $("text").value = params.get("q") || "";
  for (const [name, verb] of Object.entries(VERBS)) {
    if (name !== $("verb").value) continue;
    for (const [option, id] of Object.entries(verb.options)) {
      const value = params.get(option);
      if (value === null) continue;
      if ($(id).type === "checkbox") $(id).checked = value === "true";
      else $(id).value = value;
    }
  }
  showVerb();
  try {
    await fillDictionaries($("dict"), params.get("d"));
  } catch (error) {
    showError($("error"), error);
  }
  $("text").focus();
  document.body.dataset.ready = "true";
  if ($("text").value) await find();
}

start();
