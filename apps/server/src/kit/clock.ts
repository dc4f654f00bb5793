/** The one source of time for domain code; tests and the sandbox substitute their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };
