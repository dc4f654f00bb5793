import { redirectErrorExplanations } from "@kassa/contracts";
import { specRedirectCode } from "./spec/redirects.js";

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/** Spec section 2: a plain HTML page with the escaped error code and a link back to the app. */
export function renderErrorPage(code: string, appURL: string): string {
  const shown = code.slice(0, 200) || "unknown_error";
  const explanation =
    redirectErrorExplanations[shown] ??
    redirectErrorExplanations[safeSpecCode(shown)] ??
    "Something went wrong.";
  return `<!doctype html>
<html lang="en">
<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>Error - Kassa</title></head>
<body style="font-family:system-ui,sans-serif;max-width:36rem;margin:4rem auto;padding:0 1rem;line-height:1.5">
<h1>Something went wrong</h1>
<p>${escapeHtml(explanation)}</p>
<p>Error code: <code>${escapeHtml(shown)}</code></p>
<p><a href="${escapeHtml(appURL)}">Back to Kassa</a></p>
</body>
</html>`;
}

function safeSpecCode(code: string): string {
  try {
    return specRedirectCode(code);
  } catch {
    return code; // not valid percent-encoding: shown as it is
  }
}
