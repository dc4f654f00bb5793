/** `/subscription/{id}/payment-method?expires=…&signature=…`: a dunning mail's signed card-update link. */
export interface PaymentLinkParams {
  subscriptionId: string;
  expires: string;
  signature: string;
}

/** The link's parts from the address, or null when it is not a card-update link. */
export function parsePaymentMethodPath(pathname: string, search: string): PaymentLinkParams | null {
  const m = /^\/subscription\/([^/]+)\/payment-method\/?$/.exec(pathname);
  if (!m) return null;
  const query = new URLSearchParams(search);
  const expires = query.get("expires") ?? "";
  const signature = query.get("signature") ?? "";
  let subscriptionId: string;
  try {
    subscriptionId = decodeURIComponent(m[1]!);
  } catch {
    return null;
  }
  return { subscriptionId, expires, signature };
}
