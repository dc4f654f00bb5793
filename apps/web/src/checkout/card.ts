/** The sandbox card form's values and what the page checks of them before asking the server. */

export interface CardValues {
  number: string;
  expiry: string;
  cvc: string;
}

export const EMPTY_CARD: CardValues = { number: "", expiry: "", cvc: "" };

/** The card number in groups of four as it is typed ("4242 4242 4242 4242"). */
export function formatCardNumber(text: string): string {
  const digits = text.replace(/\D/g, "").slice(0, 19);
  return digits.replace(/(\d{4})(?=\d)/g, "$1 ");
}

/** "1234" -> "12 / 34" as it is typed; a deletion is left alone. */
export function formatExpiry(text: string, previous: string): string {
  const digits = text.replace(/\D/g, "").slice(0, 4);
  if (text.length < previous.length) return text;
  if (digits.length >= 2) return `${digits.slice(0, 2)} / ${digits.slice(2)}`;
  return digits;
}

/** MM/YY (or MM/YYYY) to a month and a four-digit year, or null. */
export function parseExpiry(text: string): { month: number; year: number } | null {
  const m = /^\s*(\d{1,2})\s*\/?\s*(\d{2}|\d{4})\s*$/.exec(text);
  if (!m) return null;
  const month = Number(m[1]);
  const year = m[2]!.length === 2 ? 2000 + Number(m[2]) : Number(m[2]);
  if (month < 1 || month > 12) return null;
  return { month, year };
}

/** What a card form checks before asking the server (which checks again). */
export function cardProblems(card: CardValues, now = new Date()): Record<string, string> {
  const errors: Record<string, string> = {};
  const digits = card.number.replace(/\D/g, "");
  if (digits === "") errors.card_number = "Enter your card number.";
  else if (digits.length < 12 || digits.length > 19) errors.card_number = "Your card number is incomplete.";
  const expiry = parseExpiry(card.expiry);
  if (card.expiry.trim() === "") errors.expiry = "Enter the expiry date (MM / YY).";
  else if (!expiry) errors.expiry = "The expiry date reads MM / YY, e.g. 12 / 30.";
  else if (
    expiry.year < now.getFullYear() ||
    (expiry.year === now.getFullYear() && expiry.month < now.getMonth() + 1)
  )
    errors.expiry = "Your card's expiry date is in the past.";
  if (card.cvc.trim() === "") errors.cvc = "Enter the security code.";
  else if (!/^\d{3,4}$/.test(card.cvc.trim())) errors.cvc = "The security code is 3 or 4 digits.";
  return errors;
}

export const TEST_CARDS = [
  { number: "4242 4242 4242 4242", outcome: "succeeds" },
  { number: "4000 0000 0000 0002", outcome: "is declined" },
  { number: "4000 0000 0000 9995", outcome: "has insufficient funds" },
];
