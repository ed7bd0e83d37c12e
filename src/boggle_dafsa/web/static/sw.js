// The service worker: the pages, their scripts and the games' data (GET answers) are kept
// in a cache as they are fetched, so that a page once loaded opens and plays without the
// network. Network first, so that a server that is there always has the last word; the
// cache answers only when it cannot be reached. Served at /sw.js so that its scope is "/".
const CACHE = "boggle-dafsa-v1";
const SHELL = [
  "/", "/play", "/daily", "/arena", "/rooms", "/words", "/study",
  "/static/style.css", "/static/js/board.js", "/static/js/common.js", "/static/js/play.js",
  "/static/js/solve.js", "/static/js/rooms.js", "/static/js/theme.js", "/static/js/words.js",
  "/static/js/arena.js", "/static/js/review.js", "/static/js/study.js",
  "/static/manifest.webmanifest", "/static/icon.svg", "/static/icon-192.png",
  "/api/dice", "/api/dictionaries",
];

self.addEventListener("install", (event) => {
  // One missing file must not stop the rest from being kept.
  event.waitUntil(caches.open(CACHE).then((cache) => Promise.all(SHELL.map((url) => cache.add(url).catch(() => null)))));
  self.skipWaiting();
});

self.addEventListener("activate", (event) => {
  event.waitUntil(
    caches.keys()
      .then((names) => Promise.all(names.filter((name) => name !== CACHE).map((name) => caches.delete(name))))
      .then(() => self.clients.claim()),
  );
});

self.addEventListener("fetch", (event) => {
  const request = event.request;
  const url = new URL(request.url);
  // Only this server's GETs; never the rooms' sockets, the docs or a POST.
  if (request.method !== "GET" || url.origin !== self.location.origin || url.pathname.startsWith("/ws/")) return;
  event.respondWith(
    fetch(request)
      .then((response) => {
        if (response.ok) {
          const copy = response.clone();
          caches.open(CACHE).then((cache) => cache.put(request, copy));
        }
        return response;
      })
      .catch(async () => {
        const cached = await caches.match(request, { ignoreVary: true });
        // A page asked for with another query (?dice=fr&seed=42) is the same page.
        return cached || (request.mode === "navigate" && (await caches.match(url.pathname, { ignoreSearch: true }))) || Response.error();
      }),
  );
});
