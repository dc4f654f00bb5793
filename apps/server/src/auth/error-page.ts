import { specRedirectCode } from "./spec/redirects.js";

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

/** What each redirect error code of spec section 8 means, in words a person understands. */
export const redirectErrorExplanations: Record<string, string> = {
  token_expired: "The link has expired. Ask for a new one.",
  invalid_token: "The link is not valid. It may have been used already.",
  user_not_found: "No account matches this link.",
  unauthorized: "You need to be signed in to do that.",
  invalid_callback_request: "The sign-in provider sent an unexpected answer.",
  state_not_found: "The sign-in took too long or was started in another browser. Try again.",
  no_code: "The sign-in provider did not return an authorization code.",
  oauth_provider_not_found: "This sign-in provider is not configured.",
  invalid_code: "The sign-in provider refused the authorization code. Try again.",
  unable_to_get_user_info: "The sign-in provider did not share your profile.",
  email_not_found: "The sign-in provider did not share an e-mail address.",
  no_callback_url: "The request did not say where to go next.",
  account_already_linked_to_different_user: "This account is already linked to another user.",
  unable_to_link_account: "The account could not be linked.",
  "account not linked": "This account is not linked to your user. Sign in another way, then link it.",
  "signup disabled": "New accounts cannot be created this way.",
  "unable to create user": "Your account could not be created.",
  "unable to create session": "You could not be signed in.",
  internal_server_error: "Something went wrong on our side.",
};

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
