/** The one source of time for domain code; tests and the sandbox substitute their own. */
export interface Clock {
  now(): Date;
}

export const systemClock: Clock = { now: () => new Date() };

/**
 * Each organization's clock. In production every organization reads the real time; on the
 * sandbox processor an organization's test clock may run ahead of it (modules/test-clocks).
 */
export interface Clocks {
  of(organizationId: string): Clock;
  /** Rereads what other processes changed (the test clocks); a no-op where nothing moves. */
  refresh(): Promise<void>;
}

/** Every organization on one clock. */
export function oneClock(clock: Clock): Clocks {
  return { of: () => clock, refresh: async () => {} };
}
