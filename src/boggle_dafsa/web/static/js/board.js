// The board: draws a 2-D grid, highlights a word's path (numbered cells and arrows) and
// lets the player trace a word by tapping adjacent cells.

const SVG = "http://www.w3.org/2000/svg";

/** How a face is printed on a die: QU -> Qu. */
export function displayFace(face) {
  return face.slice(0, 1) + face.slice(1).toLowerCase();
}

export class Board {
  /**
   * @param {HTMLElement} element where the board goes (emptied)
   * @param {number[]} shape [rows, columns]
   * @param {string[]} faces row by row
   */
  constructor(element, shape, faces) {
    if (shape.length !== 2) throw new Error("this page shows 2-D grids only");
    this.element = element;
    this.rows = shape[0];
    this.columns = shape[1];
    this.faces = faces;
    this.trail = [];
    this.onTrace = null; // (faces joined, cells) on every change of the traced trail
    this.onSubmit = null; // (word) when the player taps the last cell of the trail again
    element.replaceChildren();
    element.classList.add("board");
    element.setAttribute("role", "group");
    element.setAttribute("aria-label", `grid of ${this.rows} rows and ${this.columns} columns: arrow keys move, Space or Enter takes a letter`);
    element.classList.toggle("small", this.columns > 6);
    element.style.gridTemplateColumns = `repeat(${this.columns}, minmax(0, 1fr))`;
    this.cells = faces.map((face, index) => {
      const cell = document.createElement("button");
      cell.type = "button";
      cell.className = "cell";
      cell.dataset.index = String(index);
      cell.dataset.row = String(Math.floor(index / this.columns));
      cell.dataset.col = String(index % this.columns);
      // Rows and columns from 0, as the docs, the solver's paths and the review count them.
      cell.setAttribute("aria-label", `row ${Math.floor(index / this.columns)}, column ${index % this.columns}: ${displayFace(face)}`);
      const label = document.createElement("span");
      label.className = "face";
      label.textContent = displayFace(face);
      const order = document.createElement("span");
      order.className = "order";
      cell.append(label, order);
      cell.tabIndex = index === 0 ? 0 : -1; // one stop in the tab order; arrows move inside
      cell.addEventListener("click", () => this.tap(index));
      cell.addEventListener("keydown", (event) => this.key(event, index));
      cell.addEventListener("focus", () => this.rove(index));
      element.append(cell);
      return cell;
    });
    this.onType = null; // (letter) a letter typed while a cell has the focus
    this.svg = document.createElementNS(SVG, "svg");
    this.svg.classList.add("trail");
    this.svg.setAttribute("aria-hidden", "true");
    element.append(this.svg);
  }

  /** Highlight a path given as [[row, col], ...]: cells numbered 1, 2, ... and arrows between them. */
  highlight(path) {
    this.clear();
    const indices = path.map(([row, col]) => row * this.columns + col);
    indices.forEach((index, step) => {
      const cell = this.cells[index];
      cell.classList.add("on");
      if (step === 0) cell.classList.add("first");
      cell.dataset.order = String(step + 1);
      cell.querySelector(".order").textContent = String(step + 1);
    });
    this.drawArrows(indices);
  }

  clear() {
    for (const cell of this.cells) {
      cell.classList.remove("on", "first");
      delete cell.dataset.order;
      cell.querySelector(".order").textContent = "";
    }
    this.svg.replaceChildren();
  }

  drawArrows(indices) {
    this.svg.replaceChildren();
    if (indices.length < 2) return;
    const box = this.element.getBoundingClientRect();
    const centre = (index) => {
      const r = this.cells[index].getBoundingClientRect();
      return [r.left - box.left + r.width / 2, r.top - box.top + r.height / 2, r.width];
    };
    const defs = document.createElementNS(SVG, "defs");
    const marker = document.createElementNS(SVG, "marker");
    marker.id = "arrow-" + Math.random().toString(36).slice(2);
    for (const [name, value] of [["viewBox", "0 0 10 10"], ["refX", "8"], ["refY", "5"], ["markerWidth", "4"], ["markerHeight", "4"], ["orient", "auto-start-reverse"]]) {
      marker.setAttribute(name, value);
    }
    const head = document.createElementNS(SVG, "path");
    head.setAttribute("d", "M 0 0 L 10 5 L 0 10 z");
    marker.append(head);
    defs.append(marker);
    this.svg.append(defs);
    for (let step = 1; step < indices.length; step++) {
      const [x1, y1, size] = centre(indices[step - 1]);
      const [x2, y2] = centre(indices[step]);
      // Stop short of the centres so that the letters stay readable.
      const length = Math.hypot(x2 - x1, y2 - y1) || 1;
      const cut = size * 0.28;
      const line = document.createElementNS(SVG, "line");
      line.setAttribute("x1", String(x1 + ((x2 - x1) * cut) / length));
      line.setAttribute("y1", String(y1 + ((y2 - y1) * cut) / length));
      line.setAttribute("x2", String(x2 - ((x2 - x1) * cut) / length));
      line.setAttribute("y2", String(y2 - ((y2 - y1) * cut) / length));
      line.setAttribute("marker-end", `url(#${marker.id})`);
      this.svg.append(line);
    }
  }

  // -- the keyboard ----------------------------------------------------------------------

  /** Make `index` the board's stop in the tab order. */
  rove(index) {
    this.cells.forEach((cell, other) => { cell.tabIndex = other === index ? 0 : -1; });
  }

  /** Arrow keys (and Home, End) move across the cells; a letter goes to the word being typed. */
  key(event, index) {
    const row = Math.floor(index / this.columns);
    const col = index % this.columns;
    const moves = {
      ArrowUp: [row - 1, col], ArrowDown: [row + 1, col], ArrowLeft: [row, col - 1], ArrowRight: [row, col + 1],
      Home: [row, 0], End: [row, this.columns - 1],
    };
    const target = moves[event.key];
    if (target) {
      event.preventDefault();
      const [r, c] = target;
      if (r >= 0 && r < this.rows && c >= 0 && c < this.columns) {
        const next = r * this.columns + c;
        this.rove(next);
        this.cells[next].focus();
      }
    } else if (this.onType && event.key.length === 1 && /\p{L}/u.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      this.onType(event.key);
    }
  }

  // -- tracing -------------------------------------------------------------------------

  adjacent(a, b) {
    const dr = Math.abs(Math.floor(a / this.columns) - Math.floor(b / this.columns));
    const dc = Math.abs((a % this.columns) - (b % this.columns));
    return dr <= 1 && dc <= 1 && a !== b;
  }

  /** A tap: extend the trail to an adjacent cell, submit on the last cell, start again elsewhere. */
  tap(index) {
    if (!this.onTrace) return;
    const last = this.trail[this.trail.length - 1];
    if (index === last) {
      const word = this.tracedWord();
      this.resetTrail();
      if (this.onSubmit) this.onSubmit(word);
      return;
    }
    const position = this.trail.indexOf(index);
    if (position >= 0) this.trail = this.trail.slice(0, position + 1);
    else if (last !== undefined && this.adjacent(last, index)) this.trail.push(index);
    else this.trail = [index];
    this.showTrail();
  }

  tracedWord() {
    return this.trail.map((index) => this.faces[index]).join("");
  }

  showTrail() {
    this.cells.forEach((cell, index) => cell.classList.toggle("traced", this.trail.includes(index)));
    this.drawArrows(this.trail);
    if (this.onTrace) this.onTrace(this.tracedWord(), [...this.trail]);
  }

  resetTrail() {
    this.trail = [];
    this.showTrail();
  }
}

/** "2:05" for 125 seconds (rounded up: 0:00 only when time is up). */
export function formatClock(seconds) {
  const whole = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(whole / 60)}:${String(whole % 60).padStart(2, "0")}`;
}
