// What every page shares beyond the API: the high-contrast theme (a button in the header,
// remembered; on by default when the system asks for more contrast) and the service worker
// that lets a page once loaded open and play without the network.
const KEY = "boggle-dafsa-theme";

function apply(theme) {
  if (theme === "contrast") document.documentElement.dataset.theme = "contrast";
  else delete document.documentElement.dataset.theme;
  const button = document.getElementById("theme");
  if (button) button.setAttribute("aria-pressed", String(theme === "contrast"));
}

function chosen() {
  const stored = localStorage.getItem(KEY);
  if (stored) return stored;
  return window.matchMedia && window.matchMedia("(prefers-contrast: more)").matches ? "contrast" : "normal";
}

apply(chosen());

function addButton() {
  const header = document.querySelector("header");
  if (!header || document.getElementById("theme")) return;
  const button = document.createElement("button");
  button.type = "button";
  button.id = "theme";
  button.className = "secondary theme";
  button.textContent = "High contrast";
  button.addEventListener("click", () => {
    const next = document.documentElement.dataset.theme === "contrast" ? "normal" : "contrast";
    localStorage.setItem(KEY, next);
    apply(next);
  });
  header.append(button);
  apply(chosen());
}

if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", addButton);
else addButton();

if ("serviceWorker" in navigator) {
  navigator.serviceWorker.register("/sw.js").catch(() => null); // a page works without it
}
