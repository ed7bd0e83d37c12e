// The API's page (/api/docs): what Swagger UI draws without a name or a keyboard stop gets
// one, as it draws it (axe-core's select-name, label, button-name and
// scrollable-region-focusable): the fields of "Try it out" are named after their parameter
// (or "Request body"), the copy buttons say what they do, the code blocks that scroll
// take the focus, so that the keyboard scrolls them.
function fix() {
  for (const field of document.querySelectorAll(".swagger-ui select, .swagger-ui input, .swagger-ui textarea")) {
    if (field.hasAttribute("aria-label") || (field.labels && field.labels.length)) continue;
    const row = field.closest("tr[data-param-name]");
    const name = row ? row.dataset.paramName : field.closest(".body-param") ? "Request body" : field.placeholder || field.name;
    if (name) field.setAttribute("aria-label", name);
  }
  for (const button of document.querySelectorAll(".swagger-ui .copy-to-clipboard button:not([aria-label])")) {
    button.setAttribute("aria-label", "Copy to clipboard");
  }
  for (const code of document.querySelectorAll(".swagger-ui .microlight:not([tabindex])")) code.tabIndex = 0;
}

// Only added nodes are watched: the attributes set here do not call it again.
new MutationObserver(fix).observe(document.body, { childList: true, subtree: true });
