/**
 * Where the portal keeps the customer session token: the tab's sessionStorage, per
 * organization (a session belongs to one seller). A `?customer_session_token=` in the address
 * (the merchant's pre-authenticated link, the checkout's confirmation page) signs in and is
 * taken out of the address at once, so it is not left in the history or shared by a copy.
 */
const key = (slug: string) => `kassa-portal:${slug}`;

export function readStoredToken(slug: string): string | null {
  try {
    return sessionStorage.getItem(key(slug));
  } catch {
    return null;
  }
}

export function storeToken(slug: string, token: string | null) {
  try {
    if (token) sessionStorage.setItem(key(slug), token);
    else sessionStorage.removeItem(key(slug));
  } catch {
    // Storage refused (private mode): the session lasts as long as the page.
  }
}

/** The token of a pre-authenticated link, removed from the address; else the stored one. */
export function takeLinkToken(
  slug: string,
  location: Pick<Location, "search" | "pathname" | "hash">,
): string | null {
  const query = new URLSearchParams(location.search);
  const fromLink = query.get("customer_session_token");
  if (fromLink) {
    storeToken(slug, fromLink);
    query.delete("customer_session_token");
    const rest = query.toString();
    window.history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
    return fromLink;
  }
  return readStoredToken(slug);
}
