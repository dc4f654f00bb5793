import { MAX_AMOUNT } from "@kassa/contracts/v1";
import { formatMoney, toMinor } from "./format";

/** The contract's bounds of every amount in minor units: an integer from 0 to `MAX_AMOUNT`. */

/** What is wrong with an amount typed in major units, by the server's bounds, or undefined. */
export function amountProblem(value: number | undefined, currency: string): string | undefined {
  if (value === undefined) return undefined;
  if (value < 0) return "The amount cannot be negative.";
  const minor = toMinor(value, currency);
  if (minor !== undefined && minor > MAX_AMOUNT) return `At most ${formatMoney(MAX_AMOUNT, currency)}.`;
  return undefined;
}
