// After a game: the review the server made of it (game/review.py: the missed words by length,
// by starting cell and as anagrams of words found, the board's best words), each word
// lighting its path on the board, and the missed words to study: a link to the Study page
// when this server has one (its header links it), else a text file to download for
// `boggle-dafsa quiz --list FILE`.

/** A word that lights its path on the board when pointed at, focused or tapped. */
function wordButton(word, onPoint) {
  const button = document.createElement("button");
  button.type = "button";
  button.className = "word";
  button.textContent = word;
  if (onPoint) {
    for (const event of ["mouseenter", "focus", "click"]) button.addEventListener(event, () => onPoint(word));
  }
  return button;
}

function words(list, onPoint) {
  const line = document.createElement("p");
  line.className = "review-words";
  list.forEach((word) => line.append(wordButton(word, onPoint), " "));
  return line;
}

function heading(text) {
  const element = document.createElement("h3");
  element.textContent = text;
  return element;
}

/** Where to study the missed words: the Study page, or a text file (one word a line). */
export function studyLink(list, dictionary) {
  const paragraph = document.createElement("p");
  paragraph.className = "study";
  if (!list.length) {
    paragraph.textContent = "Nothing to study: you found every word.";
    return paragraph;
  }
  const link = document.createElement("a");
  const count = `${list.length} missed word${list.length === 1 ? "" : "s"}`;
  if (document.querySelector('header nav a[href="/study"]')) {
    const query = new URLSearchParams({ words: list.join(",") });
    if (dictionary) query.set("d", dictionary);
    link.href = `/study?${query}`;
    link.textContent = `Study the ${count}`;
    paragraph.append(link);
  } else {
    link.href = URL.createObjectURL(new Blob([list.map((word) => `${word}\n`).join("")], { type: "text/plain" }));
    link.download = "missed-words.txt";
    link.textContent = `Download the ${count} (text)`;
    const hint = document.createElement("span");
    hint.className = "muted";
    hint.textContent = ` to study them with boggle-dafsa quiz --list missed-words.txt${dictionary ? ` -d ${dictionary}` : ""}`;
    paragraph.append(link, hint);
  }
  return paragraph;
}

/**
 * Show `review` (the "review" of a report) in `element`.
 * @param {HTMLElement} element emptied first
 * @param {object} review {by_length, by_cell, anagrams, best, study}
 * @param {object} options {paths: Map word -> path, board: Board, faces, columns, dictionary}
 */
export function showReview(element, review, { paths, board, dictionary } = {}) {
  const point = board && paths ? (word) => { if (paths.has(word)) board.highlight(paths.get(word)); } : null;
  const parts = [];
  parts.push(studyLink(review.study, dictionary));
  if (review.anagrams.length) {
    parts.push(heading("Anagrams of your words, missed"));
    const list = document.createElement("ul");
    list.className = "review-list";
    for (const entry of review.anagrams) {
      const item = document.createElement("li");
      item.append(`${entry.found}: `, ...entry.missed.flatMap((word) => [wordButton(word, point), " "]));
      list.append(item);
    }
    parts.push(list);
  }
  if (review.by_length.length) {
    parts.push(heading("Missed, longest first"));
    for (const group of review.by_length) {
      const label = document.createElement("p");
      label.className = "muted review-label";
      label.textContent = `${group.length} letters (${group.words.length})`;
      parts.push(label, words(group.words, point));
    }
  }
  if (review.by_cell.length) {
    const details = document.createElement("details");
    const summary = document.createElement("summary");
    summary.textContent = "Missed, by the cell they start on";
    details.append(summary);
    for (const group of review.by_cell) {
      const [row, col] = group.cell;
      const label = document.createElement("p");
      label.className = "muted review-label";
      const face = board ? board.faces[row * board.columns + col] : "";
      label.textContent = `row ${row}, column ${col}${face ? ` (${face})` : ""}: ${group.words.length}`;
      details.append(label, words(group.words, point));
    }
    parts.push(details);
  }
  if (review.best.length) {
    parts.push(heading("The board's best words"));
    const list = document.createElement("ol");
    list.className = "review-list";
    for (const entry of review.best) {
      const item = document.createElement("li");
      item.append(wordButton(entry.word, point), ` ${entry.points} pt${entry.points === 1 ? "" : "s"}${entry.found ? ", found" : ""}`);
      list.append(item);
    }
    parts.push(list);
  }
  element.replaceChildren(...parts);
  element.hidden = false;
}
