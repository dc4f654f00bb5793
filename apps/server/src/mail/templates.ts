import type { MailMessage } from "./mailer.js";

const escapeHtml = (s: string) =>
  s.replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );

function render(opts: {
  kind: string;
  to: string;
  subject: string;
  greeting: string;
  lines: string[];
  action: string;
  url: string;
  /** Further links under the button (an invoice, the customer portal). */
  links?: { label: string; url: string }[];
  footer: string;
}): MailMessage {
  const links = opts.links ?? [];
  const text = [
    opts.greeting,
    "",
    ...opts.lines,
    "",
    `${opts.action}: ${opts.url}`,
    ...links.map((l) => `${l.label}: ${l.url}`),
    "",
    opts.footer,
    "",
    "-- Kassa",
  ].join("\n");
  const html = `<!doctype html><html><body style="font-family:system-ui,sans-serif;line-height:1.5;color:#1a1a1a">
<p>${escapeHtml(opts.greeting)}</p>
${opts.lines.map((l) => `<p>${escapeHtml(l)}</p>`).join("\n")}
<p><a href="${escapeHtml(opts.url)}" style="display:inline-block;padding:10px 16px;background:#1f6feb;color:#fff;border-radius:6px;text-decoration:none">${escapeHtml(opts.action)}</a></p>
<p style="font-size:13px;color:#555">If the button does not work, open this link: <a href="${escapeHtml(opts.url)}">${escapeHtml(opts.url)}</a></p>
${links.map((l) => `<p><a href="${escapeHtml(l.url)}">${escapeHtml(l.label)}</a></p>`).join("\n")}
<p style="font-size:13px;color:#555">${escapeHtml(opts.footer)}</p>
</body></html>`;
  return { kind: opts.kind, to: opts.to, subject: opts.subject, text, html };
}

const hello = (name: string | null | undefined) => (name ? `Hello ${name},` : "Hello,");

export const mailTemplates = {
  verification: (p: { to: string; name?: string | null; url: string }) =>
    render({
      kind: "verify-email",
      to: p.to,
      subject: "Verify your e-mail address",
      greeting: hello(p.name),
      lines: ["Please confirm that this is your e-mail address to finish setting up your Kassa account."],
      action: "Verify e-mail",
      url: p.url,
      footer: "If you did not create an account, you can ignore this mail.",
    }),
  resetPassword: (p: { to: string; name?: string | null; url: string; expiresInMinutes: number }) =>
    render({
      kind: "reset-password",
      to: p.to,
      subject: "Reset your password",
      greeting: hello(p.name),
      lines: [
        "Someone asked to reset the password of your Kassa account.",
        `The link works once and expires in ${p.expiresInMinutes} minutes.`,
      ],
      action: "Choose a new password",
      url: p.url,
      footer: "If you did not ask for this, ignore this mail: your password stays as it is.",
    }),
  changeEmail: (p: { to: string; name?: string | null; newEmail: string; url: string }) =>
    render({
      kind: "change-email",
      to: p.to,
      subject: "Confirm your new e-mail address",
      greeting: hello(p.name),
      lines: [`Someone asked to change the e-mail address of your Kassa account to ${p.newEmail}.`],
      action: "Confirm the change",
      url: p.url,
      footer: "If you did not ask for this, ignore this mail and consider changing your password.",
    }),
  deleteAccount: (p: { to: string; name?: string | null; url: string; expiresInHours: number }) =>
    render({
      kind: "delete-account",
      to: p.to,
      subject: "Confirm the deletion of your account",
      greeting: hello(p.name),
      lines: [
        "Someone asked to delete your Kassa account. This cannot be undone.",
        `The link expires in ${p.expiresInHours} hours.`,
      ],
      action: "Delete my account",
      url: p.url,
      footer: "If you did not ask for this, ignore this mail: your account stays as it is.",
    }),
  invitation: (p: { to: string; inviterName: string; organizationName: string; role: string; url: string }) =>
    render({
      kind: "invitation",
      to: p.to,
      subject: `${p.inviterName} invited you to ${p.organizationName} on Kassa`,
      greeting: "Hello,",
      lines: [`${p.inviterName} invited you to join ${p.organizationName} as ${p.role}.`],
      action: "See the invitation",
      url: p.url,
      footer: "If you do not know this organization, you can ignore this mail.",
    }),
  webhookEndpointDisabled: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    endpointUrl: string;
    failures: number;
    url: string;
  }) =>
    render({
      kind: "webhook-endpoint-disabled",
      to: p.to,
      subject: `A webhook endpoint of ${p.organizationName} was disabled`,
      greeting: hello(p.name),
      lines: [
        `Kassa disabled the webhook endpoint ${p.endpointUrl} of ${p.organizationName}: the last ${p.failures} events sent to it all failed, each after every retry.`,
        "Fix the receiver, enable the endpoint again, and replay the events it missed.",
      ],
      action: "See the webhook endpoints",
      url: p.url,
      footer: "You receive this mail as an owner of the organization.",
    }),
  /**
   * A checkout's order: the receipt, what the purchase grants (a note, a license key, files to
   * download), when a subscription renews, and the customer portal.
   */
  orderConfirmation: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    productName: string;
    amount: string;
    invoiceNumber: string;
    /** A subscription's next renewal (its first order); null for a one-time purchase. */
    renewsOn: string | null;
    benefits: { title: string; detail: string | null }[];
    receiptUrl: string;
    invoiceUrl: string;
    portalUrl: string;
  }) =>
    render({
      kind: "order-confirmation",
      to: p.to,
      subject: `Your receipt from ${p.organizationName}: ${p.productName}`,
      greeting: hello(p.name),
      lines: [
        p.renewsOn
          ? `Thank you for subscribing to ${p.productName} from ${p.organizationName}. You paid ${p.amount} (invoice ${p.invoiceNumber}).`
          : `Thank you for buying ${p.productName} from ${p.organizationName}. You paid ${p.amount} (invoice ${p.invoiceNumber}).`,
        ...(p.renewsOn ? [`Your subscription renews on ${p.renewsOn}.`] : []),
        ...(p.benefits.length > 0
          ? [
              "What you get:",
              ...p.benefits.map((b) => (b.detail ? `- ${b.title}: ${b.detail}` : `- ${b.title}`)),
            ]
          : []),
        "Your orders, invoices, downloads and license keys are in your customer portal.",
      ],
      action: "See the receipt",
      url: p.receiptUrl,
      links: [
        { label: "Invoice", url: p.invoiceUrl },
        { label: "Customer portal", url: p.portalUrl },
      ],
      footer: `You receive this mail because you bought ${p.productName} from ${p.organizationName}.`,
    }),
  renewalReceipt: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    productName: string;
    amount: string;
    invoiceNumber: string;
    periodEnd: string;
    url: string;
    /**
     * The receipt of an ended subscription's final order (the usage of its last period, billed
     * at its scheduled end or when it was revoked): the same mail, without "renews next".
     */
    ended?: boolean;
    /**
     * The receipt of a meter period's usage (a separate meter cycle, `subscription_meter_cycle`),
     * with the day that period ended (Polar's "Your … usage invoice").
     */
    usagePeriodEnd?: string;
    /** The subscription is set to end at its period's end (no renewal to announce). */
    endsAtPeriodEnd?: boolean;
  }) =>
    render({
      kind: p.ended
        ? "subscription-final-usage"
        : p.usagePeriodEnd
          ? "subscription-usage"
          : "subscription-renewed",
      to: p.to,
      subject: p.ended
        ? `Your receipt for the last period of ${p.productName}`
        : p.usagePeriodEnd
          ? `Your ${p.productName} usage invoice`
          : `Your ${p.productName} subscription renewed`,
      greeting: hello(p.name),
      lines: p.ended
        ? [
            `${p.organizationName} charged ${p.amount} for the usage of the last period of your ${p.productName} subscription (invoice ${p.invoiceNumber}).`,
            `The subscription ended on ${p.periodEnd}: nothing more will be charged for it.`,
          ]
        : p.usagePeriodEnd
          ? [
              `${p.organizationName} charged ${p.amount} for the usage of your ${p.productName} subscription up to ${p.usagePeriodEnd} (invoice ${p.invoiceNumber}).`,
              p.endsAtPeriodEnd
                ? `The subscription itself ends on ${p.periodEnd}.`
                : `The subscription itself renews next on ${p.periodEnd}.`,
            ]
          : [
              `${p.organizationName} charged ${p.amount} for your ${p.productName} subscription (invoice ${p.invoiceNumber}).`,
              `It renews next on ${p.periodEnd}.`,
            ],
      action: "See the receipt",
      url: p.url,
      footer: `You receive this mail because you subscribe to ${p.productName} from ${p.organizationName}.`,
    }),
  paymentFailed: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    productName: string;
    amount: string;
    reason: string;
    nextAttempt: string | null;
    url: string;
  }) =>
    render({
      kind: "subscription-payment-failed",
      to: p.to,
      subject: `Payment for ${p.productName} failed`,
      greeting: hello(p.name),
      lines: [
        `${p.organizationName} could not charge ${p.amount} for your ${p.productName} subscription: ${p.reason}`,
        p.nextAttempt
          ? `We will try again on ${p.nextAttempt}. Update your card before then to keep your subscription.`
          : "This was the last attempt.",
      ],
      action: "Update your card",
      url: p.url,
      footer: `You receive this mail because you subscribe to ${p.productName} from ${p.organizationName}.`,
    }),
  subscriptionCanceled: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    productName: string;
    endsAt: string | null;
    url: string;
  }) =>
    render({
      kind: "subscription-canceled",
      to: p.to,
      subject: `Your ${p.productName} subscription is canceled`,
      greeting: hello(p.name),
      lines: [
        p.endsAt
          ? `Your ${p.productName} subscription from ${p.organizationName} is canceled. You keep it until ${p.endsAt}, and you will not be charged again.`
          : `Your ${p.productName} subscription from ${p.organizationName} is canceled.`,
        "Changed your mind? You can resume it until then.",
      ],
      action: "See your subscription",
      url: p.url,
      footer: `You receive this mail because you subscribed to ${p.productName} from ${p.organizationName}.`,
    }),
  subscriptionEnded: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    productName: string;
    why: "revoked" | "ended" | "payment";
    url: string;
  }) =>
    render({
      kind: "subscription-ended",
      to: p.to,
      subject: `Your ${p.productName} subscription has ended`,
      greeting: hello(p.name),
      lines: [
        p.why === "payment"
          ? `Your ${p.productName} subscription from ${p.organizationName} has ended: its payment failed after every retry.`
          : p.why === "ended"
            ? `Your ${p.productName} subscription from ${p.organizationName} has ended, as you asked.`
            : `${p.organizationName} has ended your ${p.productName} subscription.`,
      ],
      action: "See your purchases",
      url: p.url,
      footer: `You receive this mail because you subscribed to ${p.productName} from ${p.organizationName}.`,
    }),
  trialEnding: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    productName: string;
    trialEnd: string;
    amount: string;
    url: string;
  }) =>
    render({
      kind: "subscription-trial-ending",
      to: p.to,
      subject: `Your ${p.productName} trial ends on ${p.trialEnd}`,
      greeting: hello(p.name),
      lines: [
        `Your free trial of ${p.productName} from ${p.organizationName} ends on ${p.trialEnd}.`,
        `Then your card is charged ${p.amount} and your subscription continues.`,
      ],
      action: "Check your card",
      url: p.url,
      footer: `You receive this mail because you started a trial of ${p.productName} from ${p.organizationName}.`,
    }),
  portalSignInCode: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    code: string;
    expiresInMinutes: number;
    url: string;
  }) =>
    render({
      kind: "portal-sign-in-code",
      to: p.to,
      subject: `Your ${p.organizationName} sign-in code: ${p.code}`,
      greeting: hello(p.name),
      lines: [
        `Your code to sign in to your ${p.organizationName} customer portal is:`,
        p.code,
        `It works once and expires in ${p.expiresInMinutes} minutes.`,
      ],
      action: "Open the customer portal",
      url: p.url,
      footer: "If you did not ask for this code, you can ignore this mail: nobody can sign in without it.",
    }),
  /**
   * The merchant sent the customer their portal (the dashboard's "Send by e-mail"): a
   * pre-authenticated link, so the mail says how long it works and not to pass it on.
   */
  portalLink: (p: {
    to: string;
    name?: string | null;
    organizationName: string;
    expiresInMinutes: number;
    url: string;
  }) =>
    render({
      kind: "portal-link",
      to: p.to,
      subject: `Your ${p.organizationName} customer portal`,
      greeting: hello(p.name),
      lines: [
        `${p.organizationName} sent you a link to your customer portal: your orders and receipts, subscriptions, license keys and downloads.`,
        `The link signs you in without a password and works for ${p.expiresInMinutes} minutes. Later, open the portal and ask for a sign-in code at this address.`,
      ],
      action: "Open your customer portal",
      url: p.url,
      footer: "Do not forward this mail: its link signs in as you until it expires.",
    }),
};
