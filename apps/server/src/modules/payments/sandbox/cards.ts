import type { Decline } from "../processor.js";

/**
 * The sandbox's test cards: the numbers Stripe's test mode documents, with the same outcomes,
 * so a merchant moving to Stripe test mode sees the same behaviour.
 *
 * - `succeeds`: every charge and setup succeeds.
 * - `declined`: refused at once, when saved as well as when charged.
 * - `charge_fails`: saves fine (a setup moves no money) but every charge is refused, e.g.
 *   4000 0000 0000 0341 for a renewal that fails; 9995 (insufficient funds) behaves so too.
 */
export type CardBehavior = "succeeds" | "declined" | "charge_fails";

export interface TestCard {
  behavior: CardBehavior;
  decline?: Decline;
}

export const DECLINES = {
  generic_decline: { declineCode: "generic_decline", message: "Your card was declined." },
  insufficient_funds: { declineCode: "insufficient_funds", message: "Your card has insufficient funds." },
  lost_card: { declineCode: "lost_card", message: "Your card was declined." },
  stolen_card: { declineCode: "stolen_card", message: "Your card was declined." },
  expired_card: { declineCode: "expired_card", message: "Your card has expired." },
  incorrect_cvc: { declineCode: "incorrect_cvc", message: "Your card's security code is incorrect." },
  processing_error: {
    declineCode: "processing_error",
    message: "An error occurred while processing your card. Try again in a little bit.",
  },
} satisfies Record<string, Decline>;

const ok: TestCard = { behavior: "succeeds" };

export const TEST_CARDS: Record<string, TestCard> = {
  "4242424242424242": ok,
  "4000056655665556": ok,
  "5555555555554444": ok,
  "2223003122003222": ok,
  "5200828282828210": ok,
  "378282246310005": ok,
  "6011111111111117": ok,
  "4000000000000002": { behavior: "declined", decline: DECLINES.generic_decline },
  "4000000000009987": { behavior: "declined", decline: DECLINES.lost_card },
  "4000000000009979": { behavior: "declined", decline: DECLINES.stolen_card },
  "4000000000000069": { behavior: "declined", decline: DECLINES.expired_card },
  "4000000000000127": { behavior: "declined", decline: DECLINES.incorrect_cvc },
  "4000000000000119": { behavior: "declined", decline: DECLINES.processing_error },
  "4000000000009995": { behavior: "charge_fails", decline: DECLINES.insufficient_funds },
  "4000000000000341": { behavior: "charge_fails", decline: DECLINES.generic_decline },
};

/** The Luhn checksum every real card number satisfies. */
export function luhnValid(digits: string): boolean {
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}

export function cardBrand(digits: string): string {
  if (digits.startsWith("4")) return "visa";
  if (/^3[47]/.test(digits)) return "amex";
  if (/^(5[1-5]|2(2[2-9][1-9]|2[3-9]\d|[3-6]\d\d|7[01]\d|720))/.test(digits)) return "mastercard";
  if (/^(6011|65|64[4-9])/.test(digits)) return "discover";
  if (/^35(2[89]|[3-8])/.test(digits)) return "jcb";
  if (/^3(0[0-5]|[689])/.test(digits)) return "diners";
  if (/^62/.test(digits)) return "unionpay";
  return "unknown";
}

export interface CardInput {
  card_number: string;
  exp_month: number;
  exp_year: number;
  cvc: string;
}

export interface CardProblem {
  field: keyof CardInput;
  message: string;
}

export interface AcceptedCard {
  brand: string;
  last4: string;
  expMonth: number;
  expYear: number;
  behavior: CardBehavior;
  decline: Decline | null;
}

/**
 * Checks a card as a card form would, naming the field at fault: a number of 12-19 digits
 * passing Luhn and known as a test card, an expiry not in the past (by `now`), a CVC of 3 or
 * 4 digits. Spaces and dashes in the number are ignored.
 */
export function checkCard(input: CardInput, now: Date): { card: AcceptedCard } | { problems: CardProblem[] } {
  const problems: CardProblem[] = [];
  const digits = input.card_number.replace(/[\s-]/g, "");
  let test: TestCard | undefined;
  if (!/^\d{12,19}$/.test(digits) || !luhnValid(digits)) {
    problems.push({ field: "card_number", message: "Your card number is invalid." });
  } else {
    test = TEST_CARDS[digits];
    if (!test)
      problems.push({
        field: "card_number",
        message: "The sandbox accepts test cards only, such as 4242 4242 4242 4242.",
      });
  }
  const month = input.exp_month;
  const year = input.exp_year < 100 ? 2000 + input.exp_year : input.exp_year;
  if (!Number.isInteger(month) || month < 1 || month > 12) {
    problems.push({ field: "exp_month", message: "Your card's expiration month is invalid." });
  } else if (!Number.isInteger(year) || year > now.getUTCFullYear() + 50) {
    problems.push({ field: "exp_year", message: "Your card's expiration year is invalid." });
  } else if (
    year < now.getUTCFullYear() ||
    (year === now.getUTCFullYear() && month < now.getUTCMonth() + 1)
  ) {
    problems.push({
      field: year < now.getUTCFullYear() ? "exp_year" : "exp_month",
      message: "Your card's expiration date is in the past.",
    });
  }
  if (!/^\d{3,4}$/.test(input.cvc)) {
    problems.push({ field: "cvc", message: "Your card's security code is invalid." });
  }
  if (problems.length > 0 || !test) return { problems };
  return {
    card: {
      brand: cardBrand(digits),
      last4: digits.slice(-4),
      expMonth: month,
      expYear: year,
      behavior: test.behavior,
      decline: test.decline ?? null,
    },
  };
}
