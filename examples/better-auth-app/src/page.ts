/**
 * The example's one page: sign up or in, buy, open the portal, record usage, and see what the
 * plugin answers. Plain HTML and a little script calling the plugin's endpoints, so nothing
 * but Better Auth and `@polar-sh/better-auth` is in the way. Answers are shown with
 * `textContent`, never as HTML.
 */
export function page(): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Example app on Kassa</title>
<style>
  :root { color-scheme: light dark; font-family: system-ui, sans-serif; }
  body { max-width: 46rem; margin: 2rem auto; padding: 0 1rem; line-height: 1.5; }
  fieldset { border: 1px solid #8884; border-radius: 8px; margin: 0 0 1rem; padding: 1rem; }
  input, button { font: inherit; padding: .35rem .6rem; margin: .2rem 0; }
  pre { background: #8881; padding: .75rem; border-radius: 6px; overflow: auto; max-height: 20rem; }
  .row { display: flex; gap: .5rem; flex-wrap: wrap; }
</style>
</head>
<body>
<h1>Example app</h1>
<p>Better Auth with <code>@polar-sh/better-auth</code>, pointed at Kassa. <span id="who">Not signed in.</span></p>

<form id="account"><fieldset><legend>Account</legend>
  <div class="row">
    <input name="name" placeholder="Name" autocomplete="name">
    <input name="email" type="email" placeholder="E-mail" required autocomplete="email">
    <input name="password" type="password" placeholder="Password (8+ characters)" required autocomplete="current-password">
  </div>
  <div class="row">
    <button type="submit" name="action" value="sign-up">Sign up</button>
    <button type="submit" name="action" value="sign-in">Sign in</button>
    <button type="button" id="sign-out">Sign out</button>
  </div>
</fieldset></form>

<fieldset><legend>Billing</legend>
  <div class="row">
    <button id="buy">Buy Pro</button>
    <button id="portal">Customer portal</button>
    <button id="use">Use 1 unit (event "api_call")</button>
  </div>
  <div class="row">
    <button data-get="/api/auth/customer/state">State</button>
    <button data-get="/api/auth/customer/orders/list">Orders</button>
    <button data-get="/api/auth/customer/subscriptions/list">Subscriptions</button>
    <button data-get="/api/auth/customer/benefits/list">Benefits</button>
    <button data-get="/api/auth/usage/meters/list">Usage</button>
    <button data-get="/webhooks-received">Webhooks received</button>
  </div>
</fieldset>
<pre id="out" aria-live="polite"></pre>

<script>
const out = document.getElementById("out");
const show = (value) => { out.textContent = typeof value === "string" ? value : JSON.stringify(value, null, 2); };
async function call(path, body) {
  const res = await fetch(path, body === undefined ? {} : {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body),
  });
  const text = await res.text();
  let parsed = text;
  try { parsed = JSON.parse(text); } catch {}
  if (!res.ok) throw new Error(res.status + " " + (parsed && parsed.message ? parsed.message : text));
  return parsed;
}
async function refreshWho() {
  const session = await call("/api/auth/get-session").catch(() => null);
  document.getElementById("who").textContent = session && session.user
    ? "Signed in as " + session.user.email + "." : "Not signed in.";
}
document.getElementById("account").addEventListener("submit", async (event) => {
  event.preventDefault();
  const form = new FormData(event.target);
  const action = event.submitter ? event.submitter.value : "sign-in";
  const body = { email: form.get("email"), password: form.get("password") };
  if (action === "sign-up") body.name = form.get("name") || String(form.get("email")).split("@")[0];
  try { show(await call("/api/auth/" + action + "/email", body)); } catch (e) { show(String(e)); }
  refreshWho();
});
document.getElementById("sign-out").addEventListener("click", async () => {
  try { show(await call("/api/auth/sign-out", {})); } catch (e) { show(String(e)); }
  refreshWho();
});
document.getElementById("buy").addEventListener("click", async () => {
  try { const r = await call("/api/auth/checkout", { slug: "pro", redirect: false }); location.href = r.url; }
  catch (e) { show(String(e)); }
});
document.getElementById("portal").addEventListener("click", async () => {
  try { const r = await call("/api/auth/customer/portal", { redirect: false }); location.href = r.url; }
  catch (e) { show(String(e)); }
});
document.getElementById("use").addEventListener("click", async () => {
  try { show(await call("/api/auth/usage/ingest", { event: "api_call", metadata: { units: 1 } })); }
  catch (e) { show(String(e)); }
});
for (const button of document.querySelectorAll("[data-get]")) {
  button.addEventListener("click", async () => {
    try { show(await call(button.dataset.get)); } catch (e) { show(String(e)); }
  });
}
const checkoutId = new URLSearchParams(location.search).get("checkout_id");
if (checkoutId) show("Thank you! Checkout " + checkoutId + " succeeded; the webhooks follow.");
refreshWho();
</script>
</body>
</html>
`;
}
